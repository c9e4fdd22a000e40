//go:build unix

package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gwist/gwist/http1"
)

// Streamed request bodies over HTTP/1. A request whose route asks for it
// (Config.StreamBody) is dispatched as soon as its head is parsed, and its
// body flows to the handler while it arrives:
//
//	socket ─▶ gnet's input ─▶ loop: h1Driver.feedBody (http1 BodyData) ─▶ bodyPipe ─▶ Exchange.ReadBody (worker)
//
// The pipe (bodypipe.go, shared with HTTP/2) holds at most
// Config.MaxBodyBuffered bytes here. When it is full the loop stops taking
// the connection's input and pauses reading (readpause.go), so the kernel's
// receive buffer fills and TCP flow control slows the client; a Read that
// empties the pipe to half wakes the loop again (bodyTaken). Memory per
// connection is thus the pipe, gnet's input buffer (bounded by
// MaxInboundBytes) and the kernel's socket buffer, whatever the client
// sends.
//
// "100 Continue" goes out when the handler first reads (bodyWanted), not at
// the head, so a handler that answers without reading (a 401, a 413 of its
// own) saves the client the upload. The body timer (BodyReadTimeout) runs
// while the engine is willing to take body bytes and none arrive: it
// restarts with every byte, stops while the pipe is full, and for a client
// that waits for "100 Continue" starts when that is sent.
//
// A handler that returns before the body's end leaves it to the loop,
// which discards the rest and keeps the connection when at most
// bodyDrainLimit bytes are left (known at once for a Content-Length;
// counted while discarding a chunked body); otherwise the connection closes
// after the response.
//
// Threading: inbody is the loop's (the h1Driver's) but for its immutable
// fields, which the handler's goroutine reads when it returns (endBody);
// the pipe is the shared part.

// Errors a streamed body's Read returns.
var (
	// ErrBodyAborted: the connection closed before the body's end (the
	// client left, or the server closed it); the request's context is
	// cancelled too.
	ErrBodyAborted = errors.New("gwist: request body aborted: the connection closed")
	// ErrBodyTooLarge: the body is longer than the route's limit. The
	// connection closes after the response, which is a 413 unless the
	// handler's response had begun to stream.
	ErrBodyTooLarge = errors.New("gwist: request body too large")
	// ErrBodyReadTimeout: no body byte arrived for Config.BodyReadTimeout
	// while the engine was waiting for one. The connection closes after the
	// response (a 408 unless it had begun to stream).
	ErrBodyReadTimeout = errors.New("gwist: request body read timeout")
	// ErrBodyFraming: the body's chunked framing is malformed. The error
	// also wraps the *http1.Error. The connection closes after the
	// response (a 400 unless it had begun to stream).
	ErrBodyFraming = errors.New("gwist: malformed request body")
)

// bodyDrainLimit is how much of a body its handler left unread the engine
// discards to keep the connection (net/http's limit, too).
const bodyDrainLimit = 256 << 10

// inbody is one streamed HTTP/1 request body: the loop's side of its
// pipe (bodySource).
type inbody struct {
	c *conn
	p *bodyPipe // shared with the handler

	// Immutable.
	declared int64 // the Content-Length, or -1 for a chunked body
	expect   bool  // the client sent "Expect: 100-continue"
	size     int   // what the pipe may hold: MaxBodyBuffered, or less for a shorter declared body

	// Loop only.
	req       http1.Request // what Parse fills while the body streams: trailers
	keepAlive bool          // the request allows keep-alive
	cont      bool          // "100 Continue" is to be sent when the handler reads
	drained   int64         // bytes discarded after the handler returned
}

// isClosed: the connection is gone.
func (in *inbody) isClosed() bool { return in.c.closed }

// bodyTaken: the handler made room in a full pipe (or returned, and the
// rest is to be discarded): read on. Loop only.
func (in *inbody) bodyTaken(int) {
	c := in.c
	if c.h1.in == in {
		c.resumeIfPaused()
	}
}

// bodyWanted asks for "100 Continue" on the handler's first Read, to go out
// in its place in the response order. The request's batch is looked up in
// the queue rather than remembered: batches are pooled, and one that
// finished may already serve another connection. Loop only.
func (in *inbody) bodyWanted() {
	c := in.c
	if !in.cont {
		return
	}
	for b := c.h1.head; b != nil; b = b.next {
		// A direct batch's exchanges may be its settling worker's; ours is
		// never direct.
		if !b.direct && !b.done && len(b.exs) == 1 && b.exs[0].w.in == in {
			b.cont = true
			c.h1.sendContinue()
			return
		}
	}
}

// endBody runs on the worker once the handler has returned: the rest of
// the body is the loop's to discard, and it reports whether the connection
// may stay open.
func (w *h1Worker) endBody(ex *Exchange) (keep bool) {
	in := w.in
	out := in.p.close(ex)
	left := in.declared - out.received
	// A client told no "100 Continue" may never send the body: what it
	// sends next could be a request, and must not be read as body bytes.
	unsure := in.expect && !out.interim
	switch {
	case out.failed:
		return false
	case out.done:
		return true
	case unsure:
		return false
	case in.declared >= 0:
		return left <= bodyDrainLimit
	}
	return true // chunked: the loop discards up to bodyDrainLimit, then closes
}

func bodyErrorText(status int) string {
	switch status {
	case 408:
		return "Request Timeout\n"
	case 413:
		return "Content Too Large\n"
	}
	return "Bad Request\n"
}

// streamBody decides, at the end of a head with a body, whether the body
// streams. It reports true when the request is taken care of: dispatched
// with a streamed body, or refused (413 and close). Loop only.
func (d *h1Driver) streamBody() bool {
	c := d.c
	cfg := c.config()
	req := &d.cur.Request
	if cfg.StreamBody == nil {
		if err := d.parser.BufferBody(); err != nil {
			d.failRequest(err)
			return true
		}
		return false
	}
	max, ok := cfg.StreamBody(req)
	if !ok {
		if err := d.parser.BufferBody(); err != nil {
			d.failRequest(err)
			return true
		}
		return false
	}
	if err := d.parser.StreamBody(max); err != nil {
		d.failRequest(err)
		return true
	}
	// Requests parsed before it go first, in a batch of their own; this one
	// gets a batch to itself, which is never direct (the loop may have to
	// write "100 Continue" while the handler runs).
	d.submitBuilding()
	if c.readingStopped() { // that batch was refused (503): the connection closes
		d.dropPartial()
		return true
	}
	ex := d.cur
	d.cur = nil
	in := &inbody{c: c, declared: req.ContentLength, keepAlive: req.KeepAlive, cont: req.Expect100,
		expect: req.Expect100, size: cfg.MaxBodyBuffered}
	if req.Chunked {
		in.declared = -1
	} else if in.declared < int64(in.size) {
		in.size = int(in.declared)
	}
	in.p = newBodyPipe(c, in, 0, in.size)
	ex.body, ex.w.in, d.in = in.p, in, in
	if in.cont {
		c.setPhase(phaseBody, 0) // the client waits for "100 Continue": no timer yet
	}
	d.inflight++
	b := getBatch(c)
	b.exs = append(b.exs, ex)
	d.building = b
	d.submitBuilding()
	return true
}

// feedBody moves body bytes from the input to the handler's ring, or
// discards them after the handler returned. It reports false when it
// cannot go on (no input, a full ring, the body failed). Loop only.
func (d *h1Driver) feedBody() bool {
	c := d.c
	in := d.in
	room := in.p.room(in.size) // -1: the handler returned, the rest is discarded
	if room == 0 {
		d.bodyPaused()
		return false
	}
	discard := room < 0
	c.paused = false
	if c.deadline == 0 && !in.cont {
		// Willing to take bytes again: the body timer runs.
		c.setPhase(phaseBody, c.config().BodyReadTimeout)
	}
	buf := c.input()
	if len(buf) == 0 {
		return false
	}
	if room > 0 && room < len(buf) {
		buf = buf[:room]
	}
	n, ev, err := d.parser.Parse(&in.req, buf)
	if data := d.parser.Data(); len(data) > 0 {
		if discard {
			in.drained += int64(len(data))
		} else {
			in.p.put(data)
		}
	}
	c.consume(n)
	if err != nil {
		d.bodyFailed(err)
		return false
	}
	if n > 0 {
		c.setPhase(phaseBody, c.config().BodyReadTimeout)
	}
	if ev == http1.MessageComplete {
		in.p.end(cloneTrailers(in.req.Trailers))
		d.in = nil
		c.setPhase(phaseWaiting, 0)
		if !in.keepAlive || c.srv.draining.Load() {
			c.stopReading()
		}
		return true
	}
	if discard && in.drained > bodyDrainLimit {
		c.srv.logDebug("closing after a request body its handler left unread", c)
		d.in = nil
		c.closeWhenDone()
		c.setPhase(phaseWaiting, 0)
		c.discardInput()
		return false
	}
	return true
}

// bodyPaused stops taking input while the handler has not made room (the
// ring is full): the read pause lets TCP slow the client down. The body
// timer stops too (the wait is the handler's). Input gnet lets in
// meanwhile is capped as in a pipelining pause.
func (d *h1Driver) bodyPaused() {
	c := d.c
	c.paused = true
	if c.phase == phaseBody {
		c.setPhase(phaseBody, 0)
	}
	if in := c.inboundBytes(); in > c.config().MaxInboundBytes {
		c.srv.logDebug("closing connection over its inbound buffer cap", c)
		c.srv.pipe.inboundCapped.Add(1)
		d.in.p.fail(ErrBodyAborted, 0)
		d.in = nil
		c.closeWhenDone()
		c.discardInput()
	} else {
		c.srv.pipe.notePeak(in)
	}
}

// bodyFailed ends a streamed body on a framing or limit violation: the
// handler's Read fails, and the connection closes after its response.
func (d *h1Driver) bodyFailed(err error) {
	c := d.c
	status := 400
	var perr *http1.Error
	if errors.As(err, &perr) {
		status = perr.Status
	}
	switch status {
	case 413:
		err = ErrBodyTooLarge
	default:
		err = fmt.Errorf("%w: %w", ErrBodyFraming, err)
	}
	d.in.p.fail(err, status)
	d.in = nil
	c.closeWhenDone()
	c.setPhase(phaseWaiting, 0)
	c.discardInput()
}

// bodyTimeout ends a streamed body whose bytes stopped arriving: the
// handler's Read fails with ErrBodyReadTimeout and the connection closes
// after the response. Reports true (readTimeout's contract: the
// connection closes once its output is out). Loop only.
func (d *h1Driver) bodyTimeout() bool {
	c := d.c
	c.srv.logDebug("request body read timeout", c)
	d.in.p.fail(ErrBodyReadTimeout, 408)
	d.in = nil
	c.closeWhenDone()
	c.setPhase(phaseWaiting, 0)
	c.discardInput()
	return true
}

// abortBody fails a body still arriving when the connection closes.
func (d *h1Driver) abortBody() {
	if d.in != nil {
		d.in.p.fail(ErrBodyAborted, 0)
		d.in = nil
	}
}

// cloneTrailers copies a chunked body's trailers (the parser's Request is
// reused) for the handler to keep.
func cloneTrailers(fs []http1.HeaderField) []http1.HeaderField {
	if len(fs) == 0 {
		return nil
	}
	tr := make([]http1.HeaderField, len(fs))
	for i, f := range fs {
		tr[i] = http1.HeaderField{Name: strings.Clone(f.Name), Value: strings.Clone(f.Value)}
	}
	return tr
}

// sendContinue writes "100 Continue" for the request at the head of the
// response queue when its handler has asked for it by reading, its
// response has not begun, and its body is still to come. Loop only: from
// bodyWanted, and from collect when that batch becomes the head.
func (d *h1Driver) sendContinue() {
	b := d.head
	if b == nil || !b.cont || b.done {
		return
	}
	b.cont = false
	in := b.exs[0].w.in
	in.cont = false
	if !in.p.takeInterim() {
		return
	}
	d.c.out = http1.AppendContinue(d.c.out)
	if d.in == in {
		d.c.setPhase(phaseBody, d.c.config().BodyReadTimeout)
	}
}
