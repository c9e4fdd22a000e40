//go:build unix

package engine

import (
	"context"
	"crypto/tls"
	"net"
	"os"
	"time"
)

// An Exchange that does not come from the event loop: the layer above
// builds its Request from a request it got elsewhere (a net/http server,
// httptest) and the response goes to a Sink instead of a connection. The
// handler sees the same Exchange API: Write buffers the body until
// Flush or the stream threshold, then streams it through the Sink; Detach
// and SendFile are not available (ErrInlineStreaming, ErrNoSendfile). The
// event loop's exchanges never have a sink, and their paths only test
// for one where they already branched (Flush without a batch, Write
// after a streamed response would have been taken).

// Sink is where a sink Exchange's response goes once it streams (see
// NewSinkExchange). Its methods run on the handler's goroutine.
type Sink interface {
	// StartStream sends the head: ex.Status (0 means 200) and ex.Header.
	// It is called once, when the response begins to stream.
	StartStream(ex *Exchange) error
	// WriteBody sends body bytes after the head at once (a streamed
	// Write is sent when it returns, as on a connection).
	WriteBody(p []byte) (int, error)
	// FlushBody pushes what was written to the client.
	FlushBody() error
}

// sinkState is a sink Exchange's side of the response.
type sinkState struct {
	snk       Sink
	ctx       context.Context
	tls       *tls.ConnectionState
	threshold int
	started   bool  // the head went to the sink
	aborted   bool  // AbortStream after the head went out
	err       error // sticky write error
}

// NewSinkExchange returns a pooled Exchange whose response goes to sink
// (see Sink). Its context is ctx (Done, Err, Deadline and Value are ctx's),
// its RemoteAddr remote, its TLS state ts (nil for plaintext). Once the
// buffered body passes threshold bytes (DefaultStreamThreshold when 0) the
// response streams through sink. The caller fills ex.Request, runs the
// handler, finishes the response (SinkStarted says whether the head went
// out) and gives the Exchange back with ReleaseSinkExchange.
func NewSinkExchange(ctx context.Context, remote net.Addr, ts *tls.ConnectionState, sink Sink, threshold int) *Exchange {
	if threshold <= 0 {
		threshold = DefaultStreamThreshold
	}
	ex := getExchange(remote)
	ex.resp = &sinkState{snk: sink, ctx: ctx, tls: ts, threshold: threshold}
	return ex
}

// ReleaseSinkExchange gives an Exchange from NewSinkExchange back to the
// pool; nothing of it may be used afterwards.
func ReleaseSinkExchange(ex *Exchange) { putExchange(ex) }

// HasSink reports whether the Exchange came from NewSinkExchange.
func (ex *Exchange) HasSink() bool { return ex.respond().sink() != nil }

// Sink returns the Sink of an Exchange from NewSinkExchange, else nil.
func (ex *Exchange) Sink() Sink {
	if s := ex.respond().sink(); s != nil {
		return s.snk
	}
	return nil
}

// SinkAborted reports whether a sink Exchange's streamed response was
// aborted (AbortStream after its head went out): the caller must cut it
// off rather than end it.
func (ex *Exchange) SinkAborted() bool {
	s := ex.respond().sink()
	return s != nil && s.aborted
}

// The sink's responder (responder.go).
func (s *sinkState) streamAt() int                                    { return s.threshold }
func (s *sinkState) streaming() bool                                  { return s.started }
func (s *sinkState) sink() *sinkState                                 { return s }
func (s *sinkState) upgradeWS(*Exchange, WSUpgrade) (*WSConn, error)  { return nil, errUpgrade }
func (s *sinkState) sendFile(*Exchange, *os.File, int64, int64) error { return ErrNoSendfile }

func (s *sinkState) detach(*Exchange, time.Duration, []byte) (*Detached, error) {
	return nil, ErrInlineStreaming
}

// abort: the caller cuts the response off (SinkAborted).
func (s *sinkState) abort() {
	if s.started {
		s.aborted = true
	}
}

// write is Write on a sink Exchange.
func (s *sinkState) write(ex *Exchange, p []byte) (int, error) {
	if s.started {
		if s.err != nil {
			return 0, s.err
		}
		n, err := s.snk.WriteBody(p)
		if err != nil {
			s.err = err
		}
		return n, err
	}
	ex.Body = append(ex.Body, p...)
	if len(ex.Body) > s.threshold {
		if err := s.start(ex); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// flush is Flush on a sink Exchange.
func (s *sinkState) flush(ex *Exchange) error {
	if !s.started {
		return s.start(ex)
	}
	if s.err != nil {
		return s.err
	}
	if err := s.snk.FlushBody(); err != nil {
		s.err = err
	}
	return s.err
}

// start sends the head and what was buffered.
func (s *sinkState) start(ex *Exchange) error {
	s.started = true
	if err := s.snk.StartStream(ex); err != nil {
		s.err = err
		return err
	}
	if body := ex.Body; len(body) > 0 {
		ex.Body = ex.Body[:0]
		if _, err := s.snk.WriteBody(body); err != nil {
			s.err = err
			return err
		}
		return nil
	}
	if err := s.snk.FlushBody(); err != nil {
		s.err = err
	}
	return s.err
}

// RefuseSink marks the request of an Exchange from NewSinkExchange as
// refused with status (its body over the limit, or unreadable), so that
// Refused reports it as it reports the engine's own refusals and the
// layer above answers it through its error path. Nothing for other
// Exchanges.
func (ex *Exchange) RefuseSink(status int, err error) {
	if ex.HasSink() {
		ex.refused, ex.refusedErr = status, err
	}
}
