//go:build unix

package engine

import (
	"context"
	"time"
)

// A streamed HTTP/1 response while worker writes are off (gnetreach_fd.go):
// once granted the write side, the worker hands its bytes to the loop,
// which writes them through gnet as it does a detached response's, and
// tells how much gnet then holds; the handler's Write waits while that is
// more than the limit, looking again at growing intervals. Slower than
// the worker's own writes (a loop round trip per Flush, and polling while
// the client is slow), but nothing touches the fd behind gnet's back. The
// write timeout applies as on the direct path.

// drainViaLoop is drain without worker writes.
func (st *stream) drainViaLoop(limit int) error {
	o := &st.outbound
	pause := time.Millisecond
	for {
		if !o.owns {
			if err := st.wait(); err != nil { // only waits for the grant
				return err
			}
			continue
		}
		handed := len(o.pend)
		held, err := o.handToLoop(st.ex)
		if err != nil {
			return err
		}
		if held < o.loopHeld+handed {
			o.progress = time.Now()
			pause = time.Millisecond
		}
		o.loopHeld = held
		o.c.srv.pipe.noteStreamQueued(held)
		if held <= limit {
			return nil
		}
		if st.ex.cancel.ended() {
			return ErrClientGone
		}
		if time.Since(o.progress) >= o.c.config().WriteTimeout {
			o.c.srv.pipe.writeTimeouts.Add(1)
			o.c.srv.logDebug("write timeout: the client stopped reading a streamed response", o.c)
			return ErrStreamWriteTimeout
		}
		t := time.NewTimer(pause)
		if !awaitUnlessEnded(st.ex, t.C) {
			t.Stop()
			return ErrClientGone
		}
		pause = min(2*pause, pollWait)
	}
}

// handToLoop gives pend to the loop to write and waits for it; it returns
// how much output gnet holds for the connection afterwards.
func (o *outbound) handToLoop(ex *Exchange) (int, error) {
	t := &loopOut{c: o.c, p: o.pend, done: make(chan struct{})}
	if err := o.c.el.Execute(context.Background(), t); err != nil {
		return 0, ErrClientGone
	}
	if !awaitUnlessEnded(ex, t.done) {
		o.pend = nil // the loop may still read it
		return 0, ErrClientGone
	}
	o.pend = t.p[:0]
	if t.held < 0 {
		return 0, ErrClientGone
	}
	return t.held, nil
}

// loopOut is a stream's bytes on their way to the loop.
type loopOut struct {
	c    *conn
	p    []byte
	held int // gnet's output after the write; -1 when the connection closed
	done chan struct{}
}

// Run is called on the loop.
func (t *loopOut) Run(context.Context) error {
	c := t.c
	t.held = -1
	if !c.closed {
		c.beginLoopTask()
		c.out = append(c.out, t.p...)
		c.finishCallback()
		if !c.closed {
			t.held = c.gc.OutboundBuffered()
		}
	}
	close(t.done)
	return nil
}
