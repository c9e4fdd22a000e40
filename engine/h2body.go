//go:build unix

package engine

import (
	"context"
	"io"
	"sync"

	"github.com/gwist/gwist/http1"
)

// Streamed request bodies over HTTP/2 (see inbody.go for HTTP/1). The
// request is dispatched when its headers arrive; DATA goes into the
// stream's buffer on the loop, and the handler reads it from there. The
// peer's window is refilled only as the handler reads (http2.Conn.Consumed,
// posted to the loop), so a handler that does not read stops its client
// after one window: the buffer never holds more than the stream's receive
// window, and all streams of a connection together not more than the
// connection's.

// h2creditEvery is how many read bytes are given back to the peer at once.
const h2creditEvery = 16 << 10

// h2body is a stream's request body, shared by the loop (which fills it)
// and the handler (which reads it) under mu.
type h2body struct {
	s   *h2Stream
	max int64 // the route's limit; 0 none

	mu          sync.Mutex
	buf         []byte
	received    int64
	done        bool  // END_STREAM (or the trailers) arrived
	err         error // ErrBodyAborted, ErrBodyTooLarge
	status      int   // the response err calls for (413); 0 none
	trailers    []http1.HeaderField
	reading     bool
	notify      chan struct{}
	owed        int  // bytes read and not yet given back to the peer
	crediting   bool // a credit task is queued on the loop
	handlerDone bool
}

// StreamedBody and ReadBody (inbody.go) lead here for an HTTP/2 stream.
func (b *h2body) read(ex *Exchange, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		b.mu.Lock()
		switch {
		case b.handlerDone:
			b.mu.Unlock()
			return 0, errBodyClosed
		case b.err != nil:
			err := b.err
			b.mu.Unlock()
			return 0, err
		case len(b.buf) > 0:
			n := copy(p, b.buf)
			b.buf = b.buf[n:]
			if len(b.buf) == 0 {
				b.buf = nil
			}
			b.owed += n
			credit := !b.crediting && (b.owed >= h2creditEvery || len(b.buf) == 0)
			if credit {
				b.crediting = true
			}
			b.mu.Unlock()
			if credit {
				_ = b.s.d.c.el.Execute(context.Background(), (*h2credit)(b))
			}
			return n, nil
		case b.done:
			ex.Request.Trailers = b.trailers
			b.mu.Unlock()
			return 0, io.EOF
		}
		b.reading = true
		b.mu.Unlock()
		select {
		case <-b.notify:
		case <-ex.Context().Done():
			b.fail(ErrBodyAborted, 0)
		}
	}
}

// h2credit gives what the handler read back to the peer. Loop task.
type h2credit h2body

func (t *h2credit) Run(context.Context) error {
	b := (*h2body)(t)
	b.mu.Lock()
	n := b.owed
	b.owed, b.crediting = 0, false
	b.mu.Unlock()
	s := b.s
	c := s.d.c
	if c.closed || s.freed || n == 0 {
		return nil
	}
	c.beginLoopTask()
	s.d.h2.Consumed(s.id, n)
	s.d.output()
	c.finishCallback()
	return nil
}

// feed takes DATA for the stream on the loop.
func (b *h2body) feed(data []byte, end bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err != nil || b.handlerDone {
		return
	}
	if b.max > 0 && b.received+int64(len(data)) > b.max {
		b.err, b.status = ErrBodyTooLarge, 413
		b.buf = nil
		b.wake()
		return
	}
	b.received += int64(len(data))
	b.buf = append(b.buf, data...)
	b.s.d.c.srv.pipe.noteBodyBuffered(len(b.buf))
	if end {
		b.done = true
	}
	b.wake()
}

// end marks the body complete (trailers, or an empty END_STREAM DATA).
func (b *h2body) end(trailers []http1.HeaderField) {
	b.mu.Lock()
	b.done, b.trailers = true, trailers
	b.wake()
	b.mu.Unlock()
}

// fail makes err the body's outcome unless it has one.
func (b *h2body) fail(err error, status int) {
	b.mu.Lock()
	if b.err == nil && !b.done {
		b.err, b.status = err, status
		b.buf = nil
		b.wake()
	}
	b.mu.Unlock()
}

// wake lets a waiting read go on. Called with mu held.
func (b *h2body) wake() {
	if b.reading {
		b.reading = false
		select {
		case b.notify <- struct{}{}:
		default:
		}
	}
}

// finish runs on the worker when the handler has returned: a handler that
// saw its body fail gets the status the failure calls for (unless its
// response streams). The unread rest is given back with the stream's
// Release.
func (b *h2body) finish(ex *Exchange) {
	b.mu.Lock()
	b.handlerDone = true
	b.buf = nil
	status := b.status
	b.mu.Unlock()
	if status != 0 && !ex.Streaming() && ex.Status != status {
		ex.Status = status
		ex.Header.Reset()
		_ = ex.Header.Set("Content-Type", "text/plain; charset=utf-8")
		ex.Body = append(ex.Body[:0], bodyErrorText(status)...)
	}
}
