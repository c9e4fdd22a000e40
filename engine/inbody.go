//go:build unix

package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/gwist/gwist/http1"
)

// Streamed request bodies. A request whose route asks for it
// (Config.StreamBody) is dispatched as soon as its head is parsed, and its
// body flows to the handler while it arrives:
//
//	socket ─▶ gnet's input ─▶ loop: h1Driver.feedBody (http1 BodyData) ─▶ inbody ring ─▶ Exchange.ReadBody (worker)
//
// The ring holds at most Config.MaxBodyBuffered bytes. When it is full the
// loop stops taking the connection's input and pauses reading
// (readpause.go), so the kernel's receive buffer fills and TCP flow control
// slows the client; a Read that empties the ring to half wakes the loop
// again. Memory per connection is thus the ring, gnet's input buffer
// (bounded by MaxInboundBytes) and the kernel's socket buffer, whatever the
// client sends.
//
// "100 Continue" goes out when the handler first reads, not at the head, so
// a handler that answers without reading (a 401, a 413 of its own) saves
// the client the upload. The body timer (BodyReadTimeout) runs while the
// engine is willing to take body bytes and none arrive: it restarts with
// every byte, stops while the ring is full, and for a client that waits for
// "100 Continue" starts when that is sent.
//
// A handler that returns before the body's end leaves it to the loop,
// which discards the rest and keeps the connection when at most
// bodyDrainLimit bytes are left (known at once for a Content-Length;
// counted while discarding a chunked body); otherwise the connection closes
// after the response.
//
// Threading: the loop owns the h1Driver side (in, parsing, pausing); the
// handler's goroutine owns the Exchange; inbody's locked fields are shared.
// The handler reaches the loop only through Execute (bodyResume,
// bodyContinue).

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

	errBodyClosed = errors.New("gwist: request body read after its handler returned")
)

// bodyDrainLimit is how much of a body its handler left unread the engine
// discards to keep the connection (net/http's limit, too).
const bodyDrainLimit = 256 << 10

// inbody is one streamed request body on its way from the loop to the
// handler.
type inbody struct {
	c  *conn     // immutable
	ex *Exchange // the handler's side: used by it only

	// Loop only.
	req       http1.Request // what Parse fills while the body streams: trailers
	keepAlive bool          // the request allows keep-alive
	cont      bool          // "100 Continue" is to be sent when the handler reads

	declared int64 // the Content-Length, or -1 for a chunked body (immutable)
	expect   bool  // the client sent "Expect: 100-continue" (immutable)

	mu       sync.Mutex
	ring     bodyRing
	size     int   // the ring's size once allocated
	received int64 // body bytes taken from the connection
	drained  int64 // bytes discarded after the handler returned
	done     bool  // the body's end was received
	err      error // sticky: every later Read returns it
	status   int   // the status err calls for (413, 400, 408); 0 for none
	seen     bool  // a Read returned err to the handler
	trailers []http1.HeaderField
	// handlerDone: the handler returned; the rest is discarded.
	handlerDone bool
	// loopWaiting: the loop stopped taking input on a full ring; a Read
	// that makes room wakes it.
	loopWaiting bool
	// reading: a Read waits on notify. asked: the handler has read.
	// headSent: the response's head went out, "100 Continue" may not;
	// contSent: "100 Continue" went out.
	reading, asked, headSent, contSent bool
	notify                             chan struct{}
}

// StreamedBody reports whether the request's body streams: the handler
// reads it with ReadBody, and Request.Body stays nil.
func (ex *Exchange) StreamedBody() bool { return ex.in != nil || ex.h2in != nil }

// ReadBody reads the next bytes of a streamed body as they arrive (see
// StreamedBody), blocking until some are there. It returns io.EOF after the
// body's end, with Request.Trailers then set from a chunked body's
// trailers; ErrBodyAborted once the connection is gone (at once, dropping
// bytes not yet read); ErrBodyTooLarge, ErrBodyFraming or
// ErrBodyReadTimeout when the body failed. Without a streamed body it
// returns io.EOF. One goroutine at a time, and only until the handler
// returns.
func (ex *Exchange) ReadBody(p []byte) (int, error) {
	if ex.h2in != nil {
		return ex.h2in.read(ex, p)
	}
	if ex.in == nil {
		return 0, io.EOF
	}
	return ex.in.read(p)
}

func (in *inbody) read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var done <-chan struct{}
	for {
		in.mu.Lock()
		switch {
		case in.handlerDone:
			in.mu.Unlock()
			return 0, errBodyClosed
		case in.err != nil:
			in.seen = true
			err := in.err
			in.mu.Unlock()
			return 0, err
		case in.ring.n > 0:
			n := in.ring.read(p)
			wake := in.loopWaiting && in.ring.n <= in.size/2
			if wake {
				in.loopWaiting = false
			}
			in.mu.Unlock()
			if wake {
				in.post((*bodyResume)(in))
			}
			return n, nil
		case in.done:
			in.ex.Request.Trailers = in.trailers
			in.mu.Unlock()
			return 0, io.EOF
		}
		ask := !in.asked && !in.headSent
		in.asked, in.reading = true, true
		in.mu.Unlock()
		if ask {
			in.post((*bodyContinue)(in))
		}
		if done == nil {
			done = in.ex.Context().Done()
		}
		select {
		case <-in.notify:
		case <-done:
			in.fail(ErrBodyAborted, 0)
		}
	}
}

// post runs a task on the connection's loop; when the engine is stopping
// the connection is closing too, and its close fails the body.
func (in *inbody) post(task interface{ Run(context.Context) error }) {
	_ = in.c.el.Execute(context.Background(), task)
}

// wake lets a waiting Read go on. Called with mu held.
func (in *inbody) wake() {
	if in.reading {
		in.reading = false
		select {
		case in.notify <- struct{}{}:
		default:
		}
	}
}

// fail makes err the body's outcome, unless it already has one, and drops
// what was buffered. status is the response it calls for (0: none).
func (in *inbody) fail(err error, status int) {
	in.mu.Lock()
	if in.err == nil && !in.done {
		in.err, in.status = err, status
		in.ring.release()
		in.wake()
	}
	in.mu.Unlock()
}

// endBody runs on the worker once the handler has returned. A handler that
// saw its body fail gets the status the failure calls for (unless its
// response streams). It reports whether the connection may stay open.
func (ex *Exchange) endBody() (keep bool) {
	in := ex.in
	in.mu.Lock()
	in.handlerDone = true
	in.ring.release()
	done, failed, seen, status := in.done, in.err != nil, in.seen, in.status
	left := in.declared - in.received
	// A client told no "100 Continue" may never send the body: what it
	// sends next could be a request, and must not be read as body bytes.
	unsure := in.expect && !in.contSent
	wake := in.loopWaiting
	in.loopWaiting = false
	in.mu.Unlock()
	if wake {
		in.post((*bodyResume)(in)) // the loop discards the rest
	}
	if seen && status != 0 && ex.w.st == nil && ex.Status != status {
		ex.Status = status
		ex.Header.Reset()
		_ = ex.Header.Set("Content-Type", "text/plain; charset=utf-8")
		ex.Body = append(ex.Body[:0], bodyErrorText(status)...)
	}
	switch {
	case failed:
		return false
	case done:
		return true
	case unsure:
		return false
	case in.declared >= 0:
		return left <= bodyDrainLimit
	}
	return true // chunked: the loop discards up to bodyDrainLimit, then closes
}

// bodyPending reports whether the request's streamed body has not yet
// been received to its end (a detached response must not leave it to the
// loop: detached.go).
func (ex *Exchange) bodyPending() bool {
	in := ex.in
	if in == nil {
		return false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return !in.done
}

// headSent: the response's head is going out; "100 Continue" must not follow.
func (ex *Exchange) headSent() {
	if in := ex.in; in != nil {
		in.mu.Lock()
		in.headSent = true
		in.mu.Unlock()
	}
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
	if c.stopReading { // that batch was refused (503): the connection closes
		d.dropPartial()
		return true
	}
	ex := d.cur
	d.cur = nil
	in := &inbody{c: c, ex: ex, declared: req.ContentLength, keepAlive: req.KeepAlive, cont: req.Expect100,
		expect: req.Expect100, notify: make(chan struct{}, 1)}
	if req.Chunked {
		in.declared = -1
	}
	ex.in, d.in = in, in
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
	in.mu.Lock()
	discard := in.handlerDone
	room := -1 // no bound while discarding
	if !discard {
		room = in.room(c.config().MaxBodyBuffered)
		in.loopWaiting = room == 0
	}
	in.mu.Unlock()
	if room == 0 {
		d.bodyPaused()
		return false
	}
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
		in.push(data, discard, &c.srv.pipe)
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
		in.complete()
		d.in = nil
		c.setPhase(phaseWaiting, 0)
		if !in.keepAlive || c.srv.draining.Load() {
			c.stopReading = true
		}
		return true
	}
	if discard && in.drainedOver() {
		c.srv.logDebug("closing after a request body its handler left unread", c)
		d.in = nil
		c.stopReading, c.closeWhenDone = true, true
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
		d.in.fail(ErrBodyAborted, 0)
		d.in = nil
		c.stopReading, c.closeWhenDone = true, true
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
	d.in.fail(err, status)
	d.in = nil
	c.stopReading, c.closeWhenDone = true, true
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
	d.in.fail(ErrBodyReadTimeout, 408)
	d.in = nil
	c.stopReading, c.closeWhenDone = true, true
	c.setPhase(phaseWaiting, 0)
	c.discardInput()
	return true
}

// abortBody fails a body still arriving when the connection closes.
func (d *h1Driver) abortBody() {
	if d.in != nil {
		d.in.fail(ErrBodyAborted, 0)
		d.in = nil
	}
}

// room is how many more bytes the ring takes, allocating it on first use
// (no larger than a declared Content-Length). Called with mu held.
func (in *inbody) room(max int) int {
	if in.size == 0 {
		in.size = max
		if in.declared >= 0 && in.declared < int64(max) {
			in.size = int(in.declared)
		}
	}
	return in.size - in.ring.n
}

// push hands decoded body bytes to the handler (or counts them as
// discarded). Loop only.
func (in *inbody) push(p []byte, discard bool, st *pipeStats) {
	in.mu.Lock()
	in.received += int64(len(p))
	switch {
	case discard || in.handlerDone:
		in.drained += int64(len(p))
	case in.err == nil:
		if in.ring.buf == nil {
			in.ring.alloc(in.size)
		}
		in.ring.write(p)
		st.noteBodyBuffered(in.ring.n)
		in.wake()
	}
	in.mu.Unlock()
}

func (in *inbody) drainedOver() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.drained > bodyDrainLimit
}

// complete records the body's end and its trailers (copied: the parser's
// Request is reused). Loop only.
func (in *inbody) complete() {
	var tr []http1.HeaderField
	if len(in.req.Trailers) > 0 {
		tr = make([]http1.HeaderField, len(in.req.Trailers))
		for i, f := range in.req.Trailers {
			tr[i] = http1.HeaderField{Name: strings.Clone(f.Name), Value: strings.Clone(f.Value)}
		}
	}
	in.mu.Lock()
	in.done, in.trailers = true, tr
	in.wake()
	in.mu.Unlock()
}

// bodyResume wakes the loop after a Read made room in a full ring, or the
// handler returned and the rest is to be discarded.
type bodyResume inbody

// Run is called on the loop.
func (r *bodyResume) Run(context.Context) error {
	in := (*inbody)(r)
	c := in.c
	if c.closed || c.h1.in != in {
		return nil
	}
	c.beginLoopTask()
	if c.paused && !c.stopReading {
		c.resume()
	}
	c.finishCallback()
	return nil
}

// bodyContinue asks for "100 Continue" on a handler's first Read, to go
// out in its place in the response order.
type bodyContinue inbody

// Run is called on the loop. The request's batch is looked up in the
// queue rather than remembered: batches are pooled, and one that finished
// may already serve another connection.
func (t *bodyContinue) Run(context.Context) error {
	in := (*inbody)(t)
	c := in.c
	if c.closed || !in.cont {
		return nil
	}
	for b := c.h1.head; b != nil; b = b.next {
		// A direct batch's exchanges may be its settling worker's; ours is
		// never direct.
		if !b.direct && !b.done && len(b.exs) == 1 && b.exs[0].in == in {
			b.cont = true
			c.beginLoopTask()
			c.h1.sendContinue()
			c.finishCallback()
			return nil
		}
	}
	return nil
}

// sendContinue writes "100 Continue" for the request at the head of the
// response queue when its handler has asked for it by reading, its
// response has not begun, and its body is still to come. Loop only: from
// bodyContinue, and from collect when that batch becomes the head.
func (d *h1Driver) sendContinue() {
	b := d.head
	if b == nil || !b.cont || b.done {
		return
	}
	b.cont = false
	in := b.exs[0].in
	in.cont = false
	in.mu.Lock()
	skip := in.headSent || in.done || in.err != nil || in.handlerDone
	in.contSent = !skip
	in.mu.Unlock()
	if skip {
		return
	}
	d.c.out = http1.AppendContinue(d.c.out)
	if d.in == in {
		d.c.setPhase(phaseBody, d.c.config().BodyReadTimeout)
	}
}

// bodyRing is a fixed-size circular byte buffer.
type bodyRing struct {
	buf  []byte
	r, n int // read offset, bytes held
}

var bodyBufPool sync.Pool // *[]byte of DefaultMaxBodyBuffered bytes

func (g *bodyRing) alloc(size int) {
	if size == DefaultMaxBodyBuffered {
		if p, ok := bodyBufPool.Get().(*[]byte); ok {
			g.buf = *p
			return
		}
	}
	g.buf = make([]byte, size)
}

// release drops what the ring holds and gives its buffer back.
func (g *bodyRing) release() {
	if len(g.buf) == DefaultMaxBodyBuffered {
		b := g.buf
		bodyBufPool.Put(&b)
	}
	g.buf, g.r, g.n = nil, 0, 0
}

// write appends p, which must fit.
func (g *bodyRing) write(p []byte) {
	w := (g.r + g.n) % len(g.buf)
	k := copy(g.buf[w:], p)
	copy(g.buf, p[k:])
	g.n += len(p)
}

// read moves up to len(p) bytes out.
func (g *bodyRing) read(p []byte) int {
	k := min(len(p), g.n)
	first := copy(p[:k], g.buf[g.r:])
	copy(p[first:k], g.buf)
	g.r = (g.r + k) % len(g.buf)
	g.n -= k
	if g.n == 0 {
		g.r = 0
	}
	return k
}
