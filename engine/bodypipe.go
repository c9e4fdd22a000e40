//go:build unix

package engine

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/gwist/gwist/http1"
)

// A streamed request body on its way from the loop to its handler, the
// same for HTTP/1 and HTTP/2 (x/net's pipe.go is the model):
//
//	loop: the protocol's source (inbody.go, h2body.go) ─put/end/fail─▶ bodyPipe ─read─▶ the handler (Exchange.ReadBody)
//
// The pipe holds what arrived and was not yet read; its source bounds that
// (HTTP/1: Config.MaxBodyBuffered, then the read pause; HTTP/2: the stream's
// flow-control window). As the handler reads, the pipe tells its source on
// the loop (bodyTaken): HTTP/2 gives the read bytes back to the peer's
// window, HTTP/1 resumes reading a connection that waited for room. The
// handler's first wait for bytes tells the source too (bodyWanted: HTTP/1
// sends "100 Continue" then, so a handler that answers without reading
// spares the client the upload). A failure (the connection closed, the
// body over its limit, malformed, or its bytes stopped coming) is sticky:
// every later Read returns it, and the handler's answer becomes the status
// it calls for if the handler saw it and its response has not begun.
//
// Threading: the source calls put, end and fail on the loop; the handler
// calls read on its goroutine, one at a time; close runs on the handler's
// goroutine once it has returned. The fields under mu are shared; the
// notices reach the loop through Execute, one queued at a time.

// StreamedBody reports whether the request's body streams: the handler
// reads it with ReadBody, and Request.Body stays nil.
func (ex *Exchange) StreamedBody() bool { return ex.body != nil }

// ReadBody reads the next bytes of a streamed body as they arrive (see
// StreamedBody), blocking until some are there. It returns io.EOF after the
// body's end, with Request.Trailers then set from the body's trailers;
// ErrBodyAborted once the connection is gone (at once, dropping bytes not
// yet read); ErrBodyTooLarge, ErrBodyFraming or ErrBodyReadTimeout when the
// body failed. Without a streamed body it returns io.EOF. One goroutine at
// a time, and only until the handler returns.
func (ex *Exchange) ReadBody(p []byte) (int, error) {
	if ex.body == nil {
		return 0, io.EOF
	}
	return ex.body.read(ex, p)
}

// CloseBody ends the reading of a streamed body before its handler
// returns (a net/http handler's Body.Close, or the bridge's own when the
// handler returns while a goroutine of its still reads): a ReadBody waiting
// for bytes returns at once, and it and every later one fail. What is left
// of the body is the engine's to discard, as when the handler returns. Any
// goroutine may call it, any number of times.
func (ex *Exchange) CloseBody() {
	if ex.body != nil {
		ex.body.shutRead()
	}
}

// bodyPending reports whether the request's streamed body has not yet
// been received to its end.
func (ex *Exchange) bodyPending() bool { return ex.body != nil && ex.body.pending() }

// headSent: the response's head is going out; no "100 Continue" after it.
func (ex *Exchange) headSent() {
	if ex.body != nil {
		ex.body.responseBegan()
	}
}

// errBodyClosed: a Read after CloseBody or the handler returned.
var errBodyClosed = errors.New("gwist: request body read after it was closed (CloseBody) or its handler returned")

// bodySource is a body's loop side, as the pipe tells it what the handler
// did. Its methods run on the loop.
type bodySource interface {
	// bodyTaken: the handler read n more bytes, or (n == 0) made room
	// the source waits for, or returned.
	bodyTaken(n int)
	// bodyWanted: the handler waits for the body's first bytes.
	bodyWanted()
	// isClosed: the connection is gone; notices are dropped.
	isClosed() bool
}

// bodyPipe is one streamed request body.
type bodyPipe struct {
	c   *conn      // its connection (immutable)
	src bodySource // immutable
	// every: tell the source once this many bytes were read (HTTP/2's
	// window credit); 0: only when it waits for room (HTTP/1). size: what
	// it holds at most, as its source bounds it. Immutable.
	every, size int

	mu       sync.Mutex
	buf      []byte // received, not yet read: buf[off:]
	off      int
	received int64
	done     bool  // the body's end arrived
	err      error // sticky: every later read returns it
	status   int   // the response err calls for; 0: none
	seen     bool  // a read returned err to the handler
	trailers []http1.HeaderField
	// closed: the handler returned; what still arrives is the source's
	// to discard.
	closed bool
	// shut: reads were ended early (CloseBody).
	shut bool
	// waiting: the source stopped feeding on a full pipe; a read that
	// makes room tells it.
	waiting bool
	reading bool // a read waits on notify
	asked   bool // the handler has waited for bytes
	wanted  bool // bodyWanted is to be told
	// began: the response's head is going out, so no interim response
	// ("100 Continue") may; interim: one went out.
	began, interim bool
	taken          int     // bytes read and not yet told to the source
	handoff        handoff // to the loop: bodyNotice
	notify         chan struct{}
}

// newBodyPipe makes the pipe of one body; size is what it is expected to
// hold at most (its buffer's capacity when the first bytes come).
func newBodyPipe(c *conn, src bodySource, every, size int) *bodyPipe {
	return &bodyPipe{c: c, src: src, every: every, size: size, notify: make(chan struct{}, 1)}
}

// bodyBufPool holds pipe buffers of DefaultMaxBodyBuffered bytes, the
// usual size of an HTTP/1 body's.
var bodyBufPool sync.Pool // *[]byte

// grow gives the pipe its buffer at the first bytes. Called with mu held.
func (p *bodyPipe) grow(n int) {
	size := max(p.size, n)
	if size == DefaultMaxBodyBuffered {
		if b, ok := bodyBufPool.Get().(*[]byte); ok {
			p.buf = (*b)[:0]
			return
		}
	}
	p.buf = make([]byte, 0, size)
}

// drop gives the buffer back. Called with mu held.
func (p *bodyPipe) drop() {
	if cap(p.buf) == DefaultMaxBodyBuffered {
		b := p.buf[:0]
		bodyBufPool.Put(&b)
	}
	p.buf, p.off = nil, 0
}

// held is what the pipe holds. Called with mu held.
func (p *bodyPipe) held() int { return len(p.buf) - p.off }

// put takes body bytes on the loop (copied: the loop's buffers are
// gnet's). Bytes after the handler returned, or after a failure, are
// dropped: the source accounts for them.
func (p *bodyPipe) put(b []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.received += int64(len(b))
	if p.closed || p.err != nil {
		return
	}
	if p.buf == nil {
		p.grow(len(b))
	}
	p.buf = append(p.buf, b...)
	p.c.srv.pipe.noteBodyBuffered(p.held())
	p.wake()
}

// shutRead ends the reads (CloseBody): a waiting one returns.
func (p *bodyPipe) shutRead() {
	p.mu.Lock()
	p.shut = true
	p.wake()
	p.mu.Unlock()
}

// end marks the body complete, with its trailers (already the pipe's).
func (p *bodyPipe) end(trailers []http1.HeaderField) {
	p.mu.Lock()
	if p.err == nil {
		p.done, p.trailers = true, trailers
	}
	p.wake()
	p.mu.Unlock()
}

// fail makes err the body's outcome unless it has one (or has ended), and
// drops what was buffered. status is the response it calls for (0: none).
func (p *bodyPipe) fail(err error, status int) {
	p.mu.Lock()
	if p.err == nil && !p.done {
		p.err, p.status = err, status
		p.drop()
		p.wake()
	}
	p.mu.Unlock()
}

// wake lets a waiting read go on. Called with mu held.
func (p *bodyPipe) wake() {
	if p.reading {
		p.reading = false
		select {
		case p.notify <- struct{}{}:
		default:
		}
	}
}

// read reads what arrived, waiting for bytes, the end, or a failure (the
// request's context ending fails the body with ErrBodyAborted).
func (p *bodyPipe) read(ex *Exchange, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var done <-chan struct{}
	for {
		p.mu.Lock()
		switch {
		case p.closed || p.shut:
			p.mu.Unlock()
			return 0, errBodyClosed
		case p.err != nil:
			p.seen = true
			err := p.err
			p.mu.Unlock()
			return 0, err
		case p.held() > 0:
			n := copy(b, p.buf[p.off:])
			p.off += n
			if p.off == len(p.buf) {
				p.buf, p.off = p.buf[:0], 0
			}
			p.taken += n
			if p.noticeDue() {
				p.post()
			}
			p.mu.Unlock()
			return n, nil
		case p.done:
			ex.Request.Trailers = p.trailers
			p.mu.Unlock()
			return 0, io.EOF
		}
		if !p.asked {
			p.asked, p.wanted = true, true
			p.post()
		}
		p.reading = true
		p.mu.Unlock()
		if done == nil {
			done = ex.Context().Done()
		}
		select {
		case <-p.notify:
		case <-done:
			p.fail(ErrBodyAborted, 0)
		}
	}
}

// noticeDue: the source is to be told (bodyTaken): it waits for room and
// half the pipe is free, or enough was read to credit. Called with mu held.
func (p *bodyPipe) noticeDue() bool {
	return p.waiting && p.held() <= p.size/2 || p.every > 0 && (p.taken >= p.every || p.held() == 0)
}

// post hands the notice to the loop. Called with mu held. When the engine
// is stopping the loop is gone with the connection, whose close fails the
// body.
func (p *bodyPipe) post() { p.handoff.post(p.c.el, (*bodyNotice)(p)) }

// bodyNotice is a pipe as the loop's task: tell the source what the
// handler did.
type bodyNotice bodyPipe

// Run is called on the loop.
func (t *bodyNotice) Run(context.Context) error {
	p := (*bodyPipe)(t)
	p.mu.Lock()
	n, wanted := p.taken, p.wanted
	p.handoff.taken()
	p.wanted = false
	p.taken, p.waiting = 0, false
	p.mu.Unlock()
	if p.src.isClosed() {
		return nil
	}
	c := p.c
	c.beginLoopTask()
	if wanted {
		p.src.bodyWanted()
	}
	p.src.bodyTaken(n)
	c.finishCallback()
	return nil
}

// room is how many more bytes the pipe takes under max (the source's
// bound); at 0 the source waits (waiting), and a read that makes room tells
// it. Loop only.
func (p *bodyPipe) room(max int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return -1 // no bound: what arrives is discarded
	}
	room := max - p.held()
	if room <= 0 {
		room, p.waiting = 0, true
	}
	return room
}

// awaitingPeer: the handler has read everything that arrived and more is
// to come (the body read timer runs). Loop only.
func (p *bodyPipe) awaitingPeer() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.done && p.err == nil && !p.closed && p.held() == 0
}

// bodyOutcome is what a body came to when its handler returned.
type bodyOutcome struct {
	done     bool  // its end arrived, unfailed
	failed   bool  // it failed (err set)
	interim  bool  // "100 Continue" went out
	received int64 // bytes that arrived
}

// close runs once the handler has returned: what it did not read is
// dropped (the source discards the rest: told at once if it waits for
// room), and a handler that saw its body fail gets the status the failure
// calls for, unless its response streams.
func (p *bodyPipe) close(ex *Exchange) bodyOutcome {
	p.mu.Lock()
	p.closed = true
	p.drop()
	status, seen := p.status, p.seen
	out := bodyOutcome{done: p.done && p.err == nil, failed: p.err != nil, interim: p.interim, received: p.received}
	if p.waiting {
		p.post() // the source discards the rest
	}
	p.mu.Unlock()
	if seen && status != 0 && !ex.Streaming() && ex.Status != status {
		ex.Status = status
		ex.Header.Reset()
		_ = ex.Header.Set("Content-Type", "text/plain; charset=utf-8")
		ex.Body = append(ex.Body[:0], bodyErrorText(status)...)
	}
	return out
}

// responseBegan: the response's head is going out; no interim response
// may follow. Handler side.
func (p *bodyPipe) responseBegan() {
	p.mu.Lock()
	p.began = true
	p.mu.Unlock()
}

// takeInterim reports whether an interim response ("100 Continue") may go
// out now, and if so records that it did: the handler has asked for the
// body, which has not ended or failed, and the response has not begun.
// Loop only.
func (p *bodyPipe) takeInterim() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.began || p.done || p.err != nil || p.closed || p.interim {
		return false
	}
	p.interim = true
	return true
}

// pending: the body's end has not arrived (a detached response must not
// leave it to the loop: detached.go).
func (p *bodyPipe) pending() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.done
}
