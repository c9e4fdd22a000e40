//go:build unix

package engine

import (
	"context"
	"errors"
	"log/slog"
	"strconv"

	"github.com/gwist/gwist/http1"
)

// Streaming responses. A handler on a worker that calls Flush, or whose
// Writes pass Config.StreamThreshold, sends its head at once and its body
// as it writes it: raw after a Content-Length the handler set, chunked on
// HTTP/1.1 otherwise (with trailers from Exchange.Trailer), until the close
// for HTTP/1.0. The state lives in a stream per response (not per
// connection), made only when a response streams, so a handler that never
// flushes keeps the single serialized write and its zero allocations.
// How the bytes reach the socket, and the backpressure, is outbound.go.

// Errors a streaming handler's Write or Flush can return.
var (
	// ErrInlineStreaming: Flush on a server running handlers on the event
	// loop (Config.Inline), where a handler must never wait for a client.
	// Writes there are buffered and the response is sent whole.
	ErrInlineStreaming = errors.New("gwist: streaming needs the worker pool (the server is Inline)")
	// ErrClientGone: the connection closed (the client left, or the server
	// closed it); nothing more of the response can be sent.
	ErrClientGone = errors.New("gwist: client gone")
	// ErrBodyLength: the handler wrote more than the Content-Length it set.
	// The connection is closed after what was sent, so the response is seen
	// as truncated rather than mis-framed.
	ErrBodyLength = errors.New("gwist: response body longer than its Content-Length")
	// ErrStreamWriteTimeout: the client took none of the queued response
	// for Config.WriteTimeout.
	ErrStreamWriteTimeout = errors.New("gwist: write timeout: the client stopped reading")
)

// stream is one response being sent while its handler runs. Only the
// handler's goroutine touches it; the loop reaches it through the grant
// channel alone.
type stream struct {
	ex       *Exchange
	b        *batch
	framing  http1.BodyFraming
	declared int64 // the Content-Length, with FramingLength
	sent     int64 // body bytes accepted
	keep     bool  // the head did not say Connection: close
	// broken: the response cannot be completed (over- or under-written
	// length, a failure mid-stream): the connection closes after it.
	broken bool
	err    error // sticky: every later Write returns it
	// detached: the handler handed the rest of the body to a Detached
	// (detached.go); the stream writes nothing more.
	detached *Detached

	outbound
}

// h1Worker is the responder (responder.go) of an HTTP/1 request whose
// handler runs on a worker: the batch it belongs to and, once its response
// streams, the stream. It lives in the Exchange (Exchange.w); only the
// handler's goroutine touches it.
type h1Worker struct {
	b  *batch
	st *stream // set once the response streams
	in *inbody // the streamed request body's loop side (set on the loop, before the worker)
	// hungUp: the response was abandoned before its head went out
	// (Exchange.Hangup): nothing of it is sent, and the connection closes.
	hungUp bool
}

// hangup abandons a response whose head has not gone out.
func (w *h1Worker) hangup() bool {
	if w.st != nil {
		return false
	}
	w.hungUp = true
	return true
}

func (w *h1Worker) streamAt() int    { return w.b.c.config().StreamThreshold }
func (w *h1Worker) streaming() bool  { return w.st != nil }
func (w *h1Worker) sink() *sinkState { return nil }

// flush starts streaming, or pushes what was written.
func (w *h1Worker) flush(ex *Exchange) error {
	st := w.st
	if st == nil {
		return w.startStream(ex)
	}
	if st.detached != nil {
		return ErrDetach
	}
	if st.err != nil {
		return st.err
	}
	return st.fail(st.drain(st.b.c.config().MaxStreamQueued))
}

func (w *h1Worker) write(_ *Exchange, p []byte) (int, error) { return w.st.write(p) }

// abort: the body is not ended (no last chunk) and the connection closes,
// so the client sees it truncated.
func (w *h1Worker) abort() {
	if w.st != nil {
		w.st.broken = true
	}
}

// startStream serializes the head in front of what the handler wrote, and
// any responses of the batch before this one, and starts sending.
func (w *h1Worker) startStream(ex *Exchange) error {
	b := w.b
	c := b.c
	cfg := c.config()
	st := &stream{ex: ex, b: b}
	w.st = st
	ex.headSent() // no "100 Continue" after this (inbody.go)
	status := ex.Status
	if status == 0 {
		status = 200
	}
	st.keep = ex.Request.KeepAlive && !ex.wantsClose() && !c.srv.draining.Load()
	head := http1.ResponseHead{
		Status:        status,
		Header:        &ex.Header,
		ContentLength: -1,
		ProtoMinor:    ex.Request.ProtoMinor,
		KeepAlive:     st.keep,
		HeadRequest:   ex.Request.Method == "HEAD",
		Server:        cfg.ServerName,
	}
	if v := ex.Header.Get("Content-Length"); v != "" {
		n, ok := http1.ParseContentLength(v)
		if !ok {
			c.srv.logStream(ex, "ignoring an invalid Content-Length set by the handler: "+strconv.Quote(v))
		} else {
			head.ContentLength = n
		}
	}
	st.framing = head.Framing()
	st.declared = head.ContentLength
	if st.framing == http1.FramingClose {
		st.keep = false
	}
	// The batch's earlier responses go first, then this head.
	st.pend = http1.AppendHead(append(st.pend, b.out...), &head)
	b.out = b.out[:0]
	st.startOutbound(b)
	cfg.Workers.leaveBound(b)
	body := ex.Body
	ex.Body = ex.Body[:0]
	if len(body) > 0 {
		_, err := st.write(body)
		return err
	}
	return st.fail(st.drain(cfg.MaxStreamQueued))
}

// write frames p and queues it, blocking while more than MaxStreamQueued
// waits for the socket.
func (st *stream) write(p []byte) (int, error) {
	if st.detached != nil {
		return 0, ErrDetach
	}
	if st.err != nil {
		return 0, st.err
	}
	if st.ex.cancel.ended() {
		return 0, st.fail(ErrClientGone)
	}
	var pushed bool // queueBody offered p to the socket
	var err error
	switch st.framing {
	case http1.FramingNone:
		st.sent += int64(len(p))
		return len(p), nil
	case http1.FramingLength:
		if int64(len(p)) > st.declared-st.sent {
			st.broken = true // and err is not sticky through fail: finish still sends
			st.b.c.srv.logStream(st.ex, "handler wrote more than its Content-Length "+strconv.FormatInt(st.declared, 10)+"; closing the connection")
			st.err = ErrBodyLength
			return 0, st.err
		}
		if pushed, err = st.queueBody(p); err != nil {
			return 0, st.fail(err)
		}
	case http1.FramingChunked:
		if len(p) == 0 {
			return 0, nil
		}
		st.pend = http1.AppendChunkHeader(st.pend, len(p))
		st.pend = append(append(st.pend, p...), "\r\n"...)
	default:
		if pushed, err = st.queueBody(p); err != nil {
			return 0, st.fail(err)
		}
	}
	st.sent += int64(len(p))
	limit := st.b.c.config().MaxStreamQueued
	if pushed && st.within(limit) {
		return len(p), nil // the socket was just offered everything: drain would try again
	}
	if err = st.fail(st.drain(limit)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// queueBody hands unframed body bytes to the wire straight from p when
// the worker owns the write side and nothing waits before them (no copy
// into pend; outbound.pushBody), else queues them in pend. pushed reports
// the former.
func (st *stream) queueBody(p []byte) (pushed bool, err error) {
	if st.owns && fdWriteReach.on() {
		if pushed, err = st.pushBody(p); pushed || err != nil {
			return pushed, err
		}
	}
	st.pend = append(st.pend, p...)
	return false, nil
}

// fail makes err sticky (nil stays nil). The request's context is
// cancelled with it, so a handler that sees the error finds its context
// done too, even before the loop has noticed the close.
func (st *stream) fail(err error) error {
	if err != nil && st.err == nil {
		st.err = err
		st.broken = true
		st.ex.cancel.cancel(context.Canceled)
	}
	return err
}

// finish runs on the worker when the handler has returned: end the body,
// send what is queued, and report whether the connection stays open.
func (st *stream) finish() (keep bool) {
	if st.err == nil && !st.broken {
		switch st.framing {
		case http1.FramingLength:
			if st.sent != st.declared {
				st.broken = true
				st.b.c.srv.logStream(st.ex, "handler wrote "+strconv.FormatInt(st.sent, 10)+" of its Content-Length "+
					strconv.FormatInt(st.declared, 10)+"; closing the connection")
			}
		case http1.FramingChunked:
			st.pend = http1.AppendLastChunk(st.pend, st.ex.Trailer.Fields())
		}
	}
	if st.err == nil || st.err == ErrBodyLength {
		st.finishOutbound() // what was written within the length still goes
	}
	return st.keep && !st.broken
}

// logStream reports a streamed response that could not be completed.
func (s *Server) logStream(ex *Exchange, msg string) {
	s.cfg.Logger.Error("gwist: "+msg, slog.String("method", ex.Request.Method),
		slog.String("target", ex.Request.Target))
}
