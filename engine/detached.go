//go:build unix

package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gwist/gwist/http1"
)

// A detached response outlives its handler: an event feed whose events come
// from elsewhere (a hub, a timer) for as long as the client listens. Once
// the handler returns, no goroutine is held for it: Write frames its bytes
// and hands them to the connection's loop, which writes them through gnet
// like any response (so TLS, the write timeout and the read pause apply),
// sends the keep-alive bytes the handler chose when nothing was written for
// a while (the sweep's look), and ends the response on Close, on the
// client's leaving, or when a drain begins. The connection stays the
// stream's until then; requests pipelined behind it wait, as behind any
// streamed response.

// Errors of a detached response's Write.
var (
	// ErrSlowClient: more than Config.MaxStreamQueued of the response waits
	// for the client; nothing was queued. The response stays open.
	ErrSlowClient = errors.New("gwist: the client is too far behind; nothing was queued")
	// ErrStreamEnded: Close was called, or a drain ended the response.
	ErrStreamEnded = errors.New("gwist: the response has ended")
	// ErrDetach: the response cannot be detached (it has a Content-Length,
	// no body, more requests of the same pipelined batch wait behind it, or
	// its request's streamed body has not been received to its end), or it
	// was and the handler wrote to it directly.
	ErrDetach = errors.New("gwist: only the last request of a batch, with a body and without a Content-Length, can detach its response, and then only the Detached writes it")
	// errStreamAborted: the handler failed after detaching; the response
	// is cut off (no last chunk) and the connection closes.
	errStreamAborted = errors.New("gwist: the handler failed after detaching its response")
)

// Detached is a response whose body is written after its handler returned;
// see Exchange.Detach. Its methods may be called from any goroutine.
type Detached struct {
	c       *conn
	b       *batch
	h2      *h2Stream // the HTTP/2 stream it writes to (h2detached.go); nil on HTTP/1
	chunked bool      // else close-delimited (HTTP/1.0)
	keep    bool      // the connection stays open after the response
	// idleEvery and idleBytes: the keep-alive write (already framed).
	idleEvery time.Duration
	idleBytes []byte

	mu      sync.Mutex
	buf     []byte  // framed, for the loop to write
	handoff handoff // to the loop: detachedFlush
	ended   bool    // no more writes: err says why
	err     error
	// backlog is gnet's outbound buffer as the loop last saw it.
	backlog atomic.Int64
	done    chan struct{}

	// Loop only.
	adopted   bool  // the loop has the batch back and writes for it
	lastWrite int64 // server clock of the last write
	finished  bool  // done is closed

	// afterEnd: AfterEnd's functions; doneClosed says they ran. Under mu.
	afterEnd   []func()
	doneClosed bool
}

// AfterEnd arranges for f to run once, when the response ends (as Done
// closes), on the goroutine that ends it, usually the event loop: f must
// be quick and must not block. A hub keeps its members this way without
// a goroutine per member. If the response has ended already, f runs now.
func (d *Detached) AfterEnd(f func()) {
	d.mu.Lock()
	if !d.doneClosed {
		d.afterEnd = append(d.afterEnd, f)
		d.mu.Unlock()
		return
	}
	d.mu.Unlock()
	f()
}

// closeDone closes done and runs the AfterEnd functions. Called without mu.
func (d *Detached) closeDone() {
	d.mu.Lock()
	d.doneClosed = true
	fns := d.afterEnd
	d.afterEnd = nil
	d.mu.Unlock()
	close(d.done)
	for _, f := range fns {
		f()
	}
}

// detach makes the HTTP/1 response a detached one (Exchange.Detach).
func (w *h1Worker) detach(ex *Exchange, idleEvery time.Duration, idle []byte) (*Detached, error) {
	b := w.b
	if b.exs[len(b.exs)-1] != ex || ex.Header.Get("Content-Length") != "" ||
		ex.bodiless() || ex.bodyPending() {
		return nil, ErrDetach
	}
	if w.st == nil {
		if err := w.startStream(ex); err != nil {
			return nil, err
		}
	}
	st := w.st
	if st.err != nil {
		return nil, st.err
	}
	if st.framing != http1.FramingChunked && st.framing != http1.FramingClose {
		return nil, ErrDetach // streamed with a Content-Length before Detach
	}
	// Hand the loop a clean write side: everything queued so far leaves
	// from this goroutine first.
	if err := st.fail(st.drain(0)); err != nil {
		return nil, err
	}
	d := &Detached{c: b.c, b: b, chunked: st.framing == http1.FramingChunked, keep: st.keep,
		idleEvery: idleEvery, done: make(chan struct{})}
	if len(idle) > 0 && idleEvery > 0 {
		d.idleBytes = d.frame(nil, idle)
	}
	st.detached = d
	return d, nil
}

// frame appends p as body bytes in the response's framing.
func (d *Detached) frame(dst, p []byte) []byte {
	if !d.chunked {
		return append(dst, p...)
	}
	dst = http1.AppendChunkHeader(dst, len(p))
	return append(append(dst, p...), "\r\n"...)
}

// Write queues p and returns at once. It fails without queueing anything
// with ErrSlowClient while more than Config.MaxStreamQueued waits for the
// client, and once the response has ended (ErrClientGone, ErrStreamEnded).
func (d *Detached) Write(p []byte) error {
	if len(p) == 0 {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ended {
		return d.err
	}
	if d.h2 != nil {
		return d.h2.detachedWrite(p)
	}
	if int64(len(d.buf))+d.backlog.Load() > int64(d.c.config().MaxStreamQueued) {
		return ErrSlowClient
	}
	d.buf = d.frame(d.buf, p)
	d.schedule()
	return nil
}

// Close ends the response (the last chunk goes out after what was
// written); the connection then serves its next request. Closing twice, or
// after the client left, does nothing.
func (d *Detached) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.end(ErrStreamEnded)
	return nil
}

// end marks the response ended and asks the loop to finish it. Called with
// mu held.
func (d *Detached) end(why error) {
	if d.ended {
		return
	}
	d.ended, d.err = true, why
	if d.h2 != nil {
		d.h2.detachedEnd()
		return
	}
	if d.chunked && why == ErrStreamEnded {
		d.buf = http1.AppendLastChunk(d.buf, nil)
	}
	d.schedule()
}

// schedule queues a flush on the loop unless one is queued. Called with mu
// held.
func (d *Detached) schedule() {
	if !d.handoff.post(d.c.el, (*detachedFlush)(d)) {
		// The engine is stopping: the loop is gone with the connection.
		d.ended, d.err = true, ErrClientGone
	}
}

// Done is closed when the response has ended: Close, the client leaving,
// or a drain.
func (d *Detached) Done() <-chan struct{} { return d.done }

// Err says why the response ended (ErrStreamEnded, ErrClientGone), nil
// while it is open.
func (d *Detached) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// detachedFlush is a Detached as the loop's task.
type detachedFlush Detached

// Run writes what was queued. Loop only.
func (f *detachedFlush) Run(context.Context) error {
	d := (*Detached)(f)
	if d.c.closed || !d.adopted || d.finished {
		// Not the loop's yet (adopt flushes), gone (finishGone ran), or
		// over: a flush queued while the batch was on its way back, after
		// the response had ended, finds it finished by adopt's own flush
		// and its batch released (perhaps another connection's by now).
		d.mu.Lock()
		d.handoff.taken()
		d.mu.Unlock()
		return nil
	}
	d.c.beginLoopTask()
	d.flush()
	d.c.finishCallback()
	if !d.c.closed {
		d.backlog.Store(int64(d.c.gc.OutboundBuffered()))
	}
	return nil
}

// flush moves what was queued to the connection's output and finishes the
// response once it ended. Loop only, after adopt.
func (d *Detached) flush() {
	c := d.c
	d.mu.Lock()
	c.out = append(c.out, d.buf...)
	if cap(d.buf) > 4<<10 {
		d.buf = nil
	} else {
		d.buf = d.buf[:0]
	}
	d.handoff.taken()
	ended, why := d.ended, d.err
	d.mu.Unlock()
	d.lastWrite = c.srv.now()
	if !ended {
		return
	}
	b := d.b
	b.done = true
	if !d.keep || why != ErrStreamEnded || c.srv.draining.Load() {
		b.closeAfter = true
	}
	d.finish()
	c.h1.collect()
}

// finish closes done and stops counting the response. Loop only.
func (d *Detached) finish() {
	if d.finished {
		return
	}
	d.finished = true
	d.b = nil // released by the caller: nothing here may touch it again
	if d.c.h1.detached == d {
		d.c.h1.detached = nil
	}
	d.c.srv.detached.Add(-1)
	d.closeDone()
}

// adopt runs on the loop when the batch of a detached response comes back
// from its worker: the loop takes the write side, and the batch stays at
// the head of the queue, not done, until the response ends.
func (d *Detached) adopt() {
	c := d.c
	d.adopted = true
	// The handler has returned and nothing reads the request any more:
	// give the exchange (and its request's buffers) back now rather than
	// hold it for the life of the response.
	d.b.releaseExchanges()
	c.h1.detached = d
	c.srv.detached.Add(1)
	if c.closed {
		d.finishGone()
		c.h1.releaseFinished()
		return
	}
	c.beginLoopTask()
	d.flush()
	c.finishCallback()
	if !c.closed {
		d.backlog.Store(int64(c.gc.OutboundBuffered()))
	}
}

// finishGone ends the response because the connection closed, and lets the
// batch be released. Loop only.
func (d *Detached) finishGone() {
	d.mu.Lock()
	if !d.ended {
		d.ended, d.err = true, ErrClientGone
	}
	d.buf = nil
	d.mu.Unlock()
	d.b.done = true
	d.finish()
}

// abort ends the response cut off, after its handler failed. Worker.
func (d *Detached) abort() {
	d.mu.Lock()
	d.end(errStreamAborted)
	d.mu.Unlock()
}

// abandon ends the response when its loop is gone (the engine stopped
// before the loop could adopt it): nothing will write it, and nobody else
// will close done.
func (d *Detached) abandon() {
	d.mu.Lock()
	if !d.ended {
		d.ended, d.err = true, ErrClientGone
	}
	d.mu.Unlock()
	d.finished = true
	d.closeDone()
}

// tick runs at every sweep: the keep-alive write, and the end of the
// response when a drain has begun. Loop only; the caller writes c.out.
func (d *Detached) tick(now int64) {
	if d.c.srv.draining.Load() {
		_ = d.Close()
		return
	}
	if d.idleBytes == nil || now-d.lastWrite < int64(d.idleEvery) {
		return
	}
	d.mu.Lock()
	idle := !d.ended && len(d.buf) == 0
	d.mu.Unlock()
	if idle && d.c.gc.OutboundBuffered() == 0 {
		d.c.out = append(d.c.out, d.idleBytes...)
		d.lastWrite = now
	}
}
