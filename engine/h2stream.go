//go:build unix

package engine

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/http2"
)

// errH2BodyTooLarge is the refusal of an HTTP/2 request whose body is over
// the limit (Exchange.Refused).
var errH2BodyTooLarge = errors.New("gwist: request body over the limit")

// errH2Connect refuses a plain CONNECT (RFC 9113 section 8.5): gwist runs
// no tunnels, and answers 501 at once, as on HTTP/1.1, without waiting for
// an END_STREAM the client never sends.
var errH2Connect = errors.New("gwist: CONNECT is not supported")

// errTunnel: a handler began to stream (or detach) a 2xx answer to an
// extended CONNECT without accepting a WebSocket; to the client a 2xx
// opens the tunnel (RFC 8441 section 5), so nothing is sent.
var errTunnel = errors.New("gwist: a 2xx answer to an extended CONNECT opens a tunnel: only a WebSocket upgrade may send one")

// h2Stream is one HTTP/2 request and its response. The handler's side
// (worker, or the loop when Inline) hands the response over through out,
// under mu: the head once, body bytes as they are flushed, and the end. The
// loop takes them (collect), frames them with the connection's
// http2.Conn, and writes what the peer's windows allow (pump). A handler
// that streams blocks while more than Config.MaxStreamQueued waits.
type h2Stream struct {
	d  *h2Driver
	id uint32
	ex *Exchange

	// flushed: the handler flushed, the response streams (handler side
	// only).
	flushed bool
	// declared is the Content-Length the handler set on a streamed
	// response (-1: none), wrote the body bytes handed over since (handler
	// side only): a body that does not match it is cut (RST_STREAM), never
	// ended.
	declared, wrote int64
	// b is the batch of the worker that runs the handler; nil while it
	// waits, inline, and once freed.
	b *batch
	// body: the request body streams to the handler (h2body.go).
	body *h2body
	// det: the response was detached (h2detached.go); set under mu by the
	// handler, read by the loop.
	det *Detached
	// protocol: the extended CONNECT's :protocol (RFC 8441); wsUp: the
	// WebSocket the handler accepted (set under mu, wsh2.go); ws: that
	// WebSocket once it runs (loop only); early: DATA received before it
	// ran, and earlyEnd whether it ended the stream.
	protocol string
	wsUp     *WSConn
	ws       *WSConn
	early    []byte
	earlyEnd bool

	// Loop only.
	handler h2HandlerState
	held    int64 // request body bytes counted in d.buffered
	// bodyAt: server clock of the request body's last bytes, for the body
	// read timeout (h2bodytimer.go).
	bodyAt int64
	// sent is how far the response has gone out.
	sent h2SentState
	pend []byte // body bytes http2.Conn has not taken yet
	// lent: the buffer of the round (h2outbuf.go) http2.Conn frames lent
	// bytes from; nothing reuses it before Lent reports false.
	lent      []byte
	trailers  []http1.HeaderField
	freed     bool
	uncounted bool  // left Server.h2streams (free, or the connection's close)
	lastWrite int64 // server clock when body bytes were last taken
	// stalledSince: when the connection last refused the stream's bytes
	// (the peer's window is shut); 0 while they move.
	stalledSince int64

	mu      sync.Mutex
	out     h2Out
	readied bool          // on the connection's ready list (h2ready.go)
	err     error         // ErrClientGone once the stream is gone
	room    chan struct{} // the loop took queued bytes (cap 1)
	backlog int           // bytes the loop holds (pend), as it last said
	// bufs: the body buffers that go round (h2outbuf.go); nil until a
	// body is worth it.
	bufs *h2BodyBufs
}

// h2HandlerState is where a stream's request is on its way to its
// handler. Loop only.
type h2HandlerState uint8

const (
	// h2Receiving: the request (its buffered body) is still arriving.
	h2Receiving h2HandlerState = iota
	// h2Waiting: ready, waiting for the connection's share of the worker
	// pool (Config.MaxConnHandlers; h2share.go).
	h2Waiting
	// h2Running: the handler runs, inline or on a worker (counted in
	// h2Driver.running then).
	h2Running
	// h2Returned: the handler returned.
	h2Returned
)

// h2SentState is how far a stream's response has gone out. It only moves
// forward; sentCut may follow any other. Loop only.
type h2SentState uint8

const (
	// sentNothing: no HEADERS yet.
	sentNothing h2SentState = iota
	// sentHead: HEADERS framed; the body goes out as it comes.
	sentHead
	// sentEnding: the end was handed over: pend, then END_STREAM (or the
	// trailers), goes out.
	sentEnding
	// sentAll: END_STREAM (or the trailers) framed.
	sentAll
	// sentCut: the stream was reset (by either side) or the connection
	// closed: nothing more goes out.
	sentCut
)

// h2Out is what the handler's side hands the loop.
type h2Out struct {
	head     bool // the head is set and not yet taken
	status   int
	fields   []http1.HeaderField
	length   int64 // content-length to send; -1 unknown
	body     []byte
	end      bool
	trailers []http1.HeaderField
	done     bool // the handler returned
	// abort: the handler failed mid-stream (AbortStream): reset the
	// stream rather than end it.
	abort bool
}

// The stream's responder (responder.go): the handler's side of it.

func (s *h2Stream) streamAt() int {
	if s.onLoop() {
		return 0
	}
	return s.d.c.config().StreamThreshold
}

// onLoop reports whether the handler runs on the loop (Inline, h2driver.go
// dispatch): it has no worker batch, and there, as on HTTP/1, nothing
// streams or detaches (ErrInlineStreaming); the body goes out whole when
// the handler returns. Handler side only.
func (s *h2Stream) onLoop() bool { return s.b == nil }

func (s *h2Stream) streaming() bool  { return s.flushed }
func (s *h2Stream) sink() *sinkState { return nil }

// flush makes the response stream (its worker leaves the pool's bound: a
// stream lives as long as its client listens) and hands over what was
// written.
func (s *h2Stream) flush(ex *Exchange) error { return s.flushWith(ex, nil) }

// flushWith is flush that hands over p after ex.Body, without copying it
// into ex.Body first.
func (s *h2Stream) flushWith(ex *Exchange, p []byte) error {
	if s.onLoop() {
		return ErrInlineStreaming
	}
	if s.protocol != "" && s.wsUp == nil && !s.flushed && (ex.Status == 0 || ex.Status/100 == 2) {
		return errTunnel
	}
	if !s.flushed {
		s.flushed = true
		s.d.c.config().Workers.leaveBound(s.b)
	}
	return s.sendBody(ex, p)
}

// write hands p over once the response streams (Exchange.Write).
func (s *h2Stream) write(ex *Exchange, p []byte) (int, error) {
	if err := s.flushWith(ex, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// abort: the response ends with RST_STREAM (INTERNAL_ERROR) instead of
// END_STREAM once the handler returns, so a truncated body never looks
// complete (a cache could store it).
func (s *h2Stream) abort() {
	if s.flushed {
		s.mu.Lock()
		s.out.abort = true
		s.mu.Unlock()
	}
}

// hangup abandons a response whose head has not been handed over: the
// stream is reset (RST_STREAM INTERNAL_ERROR) with no HEADERS before it,
// as x/net's server answers panic(http.ErrAbortHandler). Handler side;
// only where the handler runs off the loop.
func (s *h2Stream) hangup() bool {
	if s.flushed || s.streamAt() <= 0 {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.out.fields != nil || s.out.done {
		return false
	}
	s.out.abort = true
	if s.err == nil {
		s.err = ErrClientGone // a write after it sends nothing
	}
	return true
}

// sendBody sends the head (once), what the handler wrote and p, then
// waits while more than the cap is queued. Handler side (a worker).
func (s *h2Stream) sendBody(ex *Exchange, p []byte) error {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return s.err
	}
	if !s.out.head && !s.out.done && s.out.fields == nil {
		s.setHead(ex, -1)
	}
	n := int64(len(ex.Body) + len(p))
	if err := s.checkDeclared(ex, n); err != nil {
		ex.Body = ex.Body[:0]
		s.mu.Unlock()
		return err
	}
	s.wrote += n
	s.queueBody(ex.Body)
	s.queueBody(p)
	ex.Body = ex.Body[:0]
	s.schedule()
	return s.waitRoomUnlock(ex)
}

// checkDeclared fails the stream (ErrBodyLength) when n more body bytes
// would pass the Content-Length the handler declared. Called with mu held.
func (s *h2Stream) checkDeclared(ex *Exchange, n int64) error {
	if s.declared < 0 || s.wrote+n <= s.declared {
		return nil
	}
	s.d.c.srv.logStream(ex, "handler wrote more than its Content-Length "+strconv.FormatInt(s.declared, 10)+"; resetting the stream")
	s.out.abort, s.err = true, ErrBodyLength
	return ErrBodyLength
}

// waitRoomUnlock waits while more than the cap is queued, then unlocks mu
// and returns the stream's error. Called with mu held.
func (s *h2Stream) waitRoomUnlock(ex *Exchange) error {
	limit := s.d.c.config().MaxStreamQueued
	for s.err == nil && len(s.out.body)+s.backlog > limit {
		s.mu.Unlock()
		select {
		case <-s.room:
		case <-ex.Context().Done():
		}
		s.mu.Lock()
		if ex.cancel.errNow() != nil && s.err == nil {
			s.err = ErrClientGone
		}
	}
	err := s.err
	s.mu.Unlock()
	return err
}

// setHead snapshots the response head. Called with mu held.
func (s *h2Stream) setHead(ex *Exchange, length int64) {
	status := ex.status()
	if ex.bodiless() {
		length = -1
		if ex.Request.Method == "HEAD" && len(ex.Body) > 0 {
			length = int64(len(ex.Body))
		}
	}
	s.out.head, s.out.status = true, status
	s.out.fields = responseFields(ex, length, s.d.c.config().ServerName)
	ex.headSent() // no interim 100 after this (h2body.go)
	s.declared = -1
	if length < 0 && !ex.bodiless() {
		if v := ex.Header.Get("Content-Length"); v != "" {
			if n, ok := http1.ParseContentLength(v); ok {
				s.declared = n
			} else {
				s.d.c.srv.logStream(ex, "dropping an invalid Content-Length set by the handler: "+strconv.Quote(v))
				s.out.fields = dropField(s.out.fields, "Content-Length")
			}
		}
	}
}

// dropField returns fields without those named name (any case).
func dropField(fields []http1.HeaderField, name string) []http1.HeaderField {
	out := fields[:0]
	for _, f := range fields {
		if !strings.EqualFold(f.Name, name) {
			out = append(out, f)
		}
	}
	return out
}

// handlerDone hands over the rest of the response when the handler has
// returned. Handler side.
func (s *h2Stream) handlerDone(ex *Exchange) {
	s.mu.Lock()
	if s.det != nil || s.wsUp != nil { // the Detached (or the WebSocket) ends the stream, not the handler
		s.out.done = true
		s.mu.Unlock()
		return
	}
	if s.out.abort { // the loop cuts the stream (collect)
		s.out.done = true
		s.mu.Unlock()
		return
	}
	if s.out.fields == nil {
		s.setHead(ex, int64(len(ex.Body)))
	} else if s.declared >= 0 && s.wrote+int64(len(ex.Body)) != s.declared {
		// A streamed body short of (or past) its Content-Length: cut, so
		// that it never looks complete.
		s.d.c.srv.logStream(ex, "handler wrote "+strconv.FormatInt(s.wrote+int64(len(ex.Body)), 10)+" of its Content-Length "+
			strconv.FormatInt(s.declared, 10)+"; resetting the stream")
		s.out.abort, s.out.done = true, true
		s.mu.Unlock()
		return
	}
	if len(s.out.body) == 0 && len(ex.Body) > 0 && cap(ex.Body) > maxPooledBody {
		// The pool would drop a buffer this large: hand it over as it is.
		s.handOverBody(ex)
	} else {
		s.queueBody(ex.Body)
		ex.Body = ex.Body[:0]
	}
	s.out.end = true
	if tr := ex.Trailer.Fields(); len(tr) > 0 {
		s.out.trailers = append([]http1.HeaderField(nil), tr...)
	}
	s.out.done = true
	s.mu.Unlock()
}

// finishOnWorker hands over the rest of the response from the worker.
func (s *h2Stream) finishOnWorker(ex *Exchange) {
	s.handlerDone(ex)
	s.mu.Lock()
	s.schedule()
	s.mu.Unlock()
}

// schedule asks the loop to collect (with the connection's other ready
// streams, h2ready.go). Called with mu held.
func (s *h2Stream) schedule() {
	if !s.d.markReady(s) {
		s.err = ErrClientGone // the loop is gone with the connection
	}
}

// collect takes what the handler handed over and frames it. Loop only.
func (s *h2Stream) collect() {
	s.d.c.loopOnly("h2Stream.collect")
	s.mu.Lock()
	o := s.out
	s.out.head, s.out.body, s.out.trailers = false, nil, nil
	s.readied = false
	wsUp := s.wsUp
	s.mu.Unlock()
	if o.done && s.handler != h2Returned {
		s.handlerReturned()
	}
	if o.head && s.sent == sentNothing {
		s.sendHead(o)
	}
	if o.body != nil && (s.sent != sentHead || len(s.pend) > 0) {
		// Not taken as pend: copied after it, or dropped (the stream was
		// cut); either way the buffer is free.
		moved := false
		if s.sent == sentHead {
			old := unsafe.SliceData(s.pend)
			s.pend = append(s.pend, o.body...)
			moved = unsafe.SliceData(s.pend) != old
		}
		s.mu.Lock()
		s.keepSpare(o.body)
		if moved {
			s.pendDrained() // pend left the buffer it came in: that one is free
		}
		s.mu.Unlock()
	} else if o.body != nil {
		s.pend = o.body // the handed-over buffer is the loop's now
		s.notePend(o.body)
	}
	if s.sent == sentHead {
		if len(o.body) > 0 {
			s.lastWrite = s.d.c.srv.now()
		}
		if o.end {
			s.sent, s.trailers = sentEnding, o.trailers
		}
	}
	s.pump()
	if o.abort && o.done {
		// The handler failed after its response began: its head (framed
		// above) goes out, then the stream is cut off, so that the
		// response never looks complete.
		s.cut(http2.ErrCodeInternal, ErrClientGone)
	}
	if s.handler == h2Returned && wsUp != nil && s.ws == nil && s.sent == sentHead {
		s.startWS() // the handler accepted a WebSocket (wsh2.go)
	}
	if s.handler == h2Returned && (s.sent == sentCut || s.sent == sentAll) {
		s.free()
	}
}

// sendHead frames the response's HEADERS (with END_STREAM when there is
// no body). Loop only.
func (s *h2Stream) sendHead(o h2Out) {
	noBody := o.end && len(o.body) == 0 && o.trailers == nil
	if s.ex.Request.Method == "HEAD" || !bodyAllowed(o.status) {
		noBody = true
	}
	s.lastWrite = s.d.c.srv.now()
	switch err := s.d.h2.WriteHeaders(s.id, o.status, o.fields, noBody); {
	case err != nil:
		s.sent = sentCut
		s.fail(ErrClientGone)
	case noBody:
		s.sent = sentAll
	default:
		s.sent = sentHead
	}
}

// pump writes pend as far as the windows allow, then the end. Loop only.
func (s *h2Stream) pump() {
	s.d.c.loopOnly("h2Stream.pump")
	h := s.d.h2
	if s.sent != sentHead && s.sent != sentEnding {
		return
	}
	ending := s.sent == sentEnding
	lent, drained := false, false
	if len(s.pend) > 0 || ending && s.trailers == nil {
		s.reclaimLent()
		n, err := h.LendData(s.id, s.pend, ending && s.trailers == nil)
		if err != nil {
			s.sent = sentCut
			s.fail(ErrClientGone)
			return
		}
		lent = n > 0                        // (LendData copies only behind bytes WriteData queued: never here)
		drained = n == len(s.pend) && n > 0 // http2.Conn took it all
		s.pend = s.pend[n:]
		switch {
		case n > 0:
			s.stalledSince = 0
		case len(s.pend) > 0 && s.stalledSince == 0:
			s.stalledSince = s.d.c.srv.now()
		}
		if len(s.pend) == 0 {
			s.pend = nil
			if ending && s.trailers == nil {
				s.sent = sentAll
			}
		}
	}
	if len(s.pend) == 0 && ending && s.trailers != nil {
		_ = h.WriteTrailers(s.id, s.trailers)
		s.trailers, s.sent = nil, sentAll
	}
	s.mu.Lock()
	s.backlog = len(s.pend)
	if lent {
		s.lendPend()
	}
	if drained {
		s.pendDrained()
	}
	s.mu.Unlock()
	if ws := s.ws; ws != nil {
		ws.noteBacklog()
		if len(s.pend) == 0 {
			// The peer's WINDOW_UPDATE let the output go: nothing else
			// would bring a read paused for it back before the sweep.
			ws.readOnH2()
		}
	}
	select {
	case s.room <- struct{}{}:
	default:
	}
	if s.handler == h2Returned && s.sent == sentAll {
		s.free()
	}
}

// reset: the peer reset the stream (or the connection closed). Loop only.
func (s *h2Stream) reset() { s.drop(ErrClientGone) }

// cut resets the stream from the server's side with RST_STREAM code: a
// write timeout, a handler that failed mid-stream, a WebSocket on the
// stream that must end at once. err is what the handler's next write
// returns. Loop only.
func (s *h2Stream) cut(code http2.ErrCode, err error) {
	if s.sent == sentCut {
		return
	}
	s.d.h2.ResetStream(s.id, code)
	s.drop(err)
}

// drop is the one way a stream ends before its response does: what it
// holds is dropped, the handler's next write fails with err (before its
// context ends, which a waiting write also sees), its streamed request
// body fails, a WebSocket on it is gone, and it is freed now unless its
// handler still runs (then when it returns). Loop only.
func (s *h2Stream) drop(err error) {
	s.sent = sentCut
	s.trailers = nil
	s.mu.Lock()
	s.pendDrained() // dropped, not sent: free all the same
	s.mu.Unlock()
	s.reclaimLent() // the stream's reset dropped what http2.Conn held
	s.pend = nil
	s.fail(err)
	s.ex.cancel.cancel(context.Canceled)
	if s.body != nil {
		s.body.p.fail(ErrBodyAborted, 0)
	}
	s.wsGone()
	if s.handler != h2Running {
		s.free()
	}
}

// fail makes the handler's next flush fail and wakes one that waits.
func (s *h2Stream) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	select {
	case s.room <- struct{}{}:
	default:
	}
}

// free releases the stream and its exchange once the handler is done with
// it and the response was handed to the connection (or cannot be). Loop
// only.
func (s *h2Stream) free() {
	if s.freed {
		return
	}
	s.freed = true
	d := s.d
	if s.handler == h2Waiting {
		d.unwait(s)
	}
	if s.det != nil {
		s.detachedFinish()
	}
	s.wsGone()
	d.buffered -= s.held
	s.held = 0
	if n := len(s.early); n > 0 { // an extended CONNECT's DATA nobody read
		d.h2.Consumed(s.id, n)
		s.early = nil
	}
	d.h2.Release(s.id)
	s.releaseBufs()
	delete(d.streams, s.id)
	s.uncount()
	if b := s.b; b != nil {
		s.b = nil
		b.release() // and the exchange with it
	} else {
		putExchange(s.ex)
	}
	s.ex = nil
}

// writeTimedOut resets a stream whose peer has taken none of its response
// for Config.WriteTimeout (a zero window held open): its handler's next
// write fails with ErrStreamWriteTimeout and what it queued is dropped.
// Loop only, from the sweep.
func (s *h2Stream) writeTimedOut(now int64) bool {
	c := s.d.c
	if s.sent == sentCut || s.stalledSince == 0 || now-s.stalledSince < int64(c.config().WriteTimeout) {
		return false
	}
	c.srv.pipe.writeTimeouts.Add(1)
	c.srv.logDebug("HTTP/2 write timeout: the client's window stayed shut", c)
	s.cut(http2.ErrCodeCancel, ErrStreamWriteTimeout)
	return true
}

// uncount takes the stream out of Server.h2streams, once. Loop only.
func (s *h2Stream) uncount() {
	if !s.uncounted {
		s.uncounted = true
		s.d.c.srv.h2streams.Add(-1)
	}
}
