//go:build unix

package engine

import (
	"context"
	"errors"
	"time"
)

// outbound carries a streamed response's bytes from its handler to the
// socket, with backpressure. The worker running the handler writes them
// itself, like a direct batch (direct.go), once it owns the connection's
// write side: at once for a direct batch, otherwise when the loop grants it
// (nothing of the connection queued before it, nothing held by gnet). What
// the socket does not take stays queued here; once more than
// Config.MaxStreamQueued is queued, the handler's Write waits for the socket
// to become writable (poll on the worker, never the loop) and goes on as it
// drains. A closed connection (OnClose sets wclosed, cancels the request)
// makes the next write fail at once.
//
// While the worker owns the write side the loop writes nothing to the
// connection: every later response waits in the queue behind the
// unfinished batch, exactly as behind a direct batch.
type outbound struct {
	c       *conn
	pend    []byte        // framed plaintext not yet handed to the wire
	wire    []byte        // bytes for the fd (ciphertext over TLS) not yet taken
	granted chan struct{} // closed by the loop; nil for a direct batch
	owns    bool          // the worker owns the write side
	first   bool          // the connection's first TLS response: stamp it
	// progress: when the socket last took bytes (for the write timeout).
	progress time.Time
	// loopHeld: gnet's output after the last hand-over to the loop, while
	// worker writes are off (outbound_loop.go).
	loopHeld int
}

// pollWait bounds one wait for writability, so a connection the loop
// closed under the wait (its fd number maybe reused) is noticed.
const pollWait = 50 * time.Millisecond

func (o *outbound) startOutbound(b *batch) {
	o.c = b.c
	o.progress = time.Now()
	if b.direct {
		o.owns, o.first = true, b.firstTLS
		b.firstTLS = false
		return
	}
	o.granted = make(chan struct{})
	if err := b.c.el.Execute(context.Background(), &grantReq{c: b.c, b: b, ch: o.granted}); err != nil {
		o.granted = nil // the engine is stopping; the cancel ends the stream
	}
}

func (o *outbound) queued() int { return len(o.pend) + len(o.wire) }

// within reports whether at most limit bytes are queued, noting the queue
// for the stream-queue peak.
func (o *outbound) within(limit int) bool {
	q := o.queued()
	o.c.srv.pipe.noteStreamQueued(q)
	return q <= limit
}

// drain sends what it can and returns once at most limit bytes remain
// queued, waiting for the grant or the socket as needed.
func (st *stream) drain(limit int) error {
	if !fdWriteReach.on() {
		return st.drainViaLoop(limit)
	}
	o := &st.outbound
	for {
		if !o.owns {
			// Before the grant nothing may be written, and Flush must send:
			// wait for the responses queued before this one to leave.
			if err := st.wait(); err != nil {
				return err
			}
			continue
		}
		if err := o.push(); err != nil {
			return err
		}
		if o.within(limit) {
			return nil
		}
		if err := st.wait(); err != nil {
			return err
		}
	}
}

// errGnetHolds: over TLS, gnet holds ciphertext the loop wrote; wait.
var errGnetHolds = errors.New("gnet holds output")

// push hands pend to the wire and writes as much of it as the socket takes.
func (o *outbound) push() error {
	c := o.c
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wclosed {
		return ErrClientGone
	}
	if c.isTLS() {
		if len(o.pend) > 0 {
			if c.wpending {
				return nil // the loop's ciphertext goes first; wait sees it
			}
			if err := o.sealLocked(o.pend); err != nil {
				return err
			}
			o.pend = o.pend[:0]
		}
	} else if len(o.pend) > 0 {
		if len(o.wire) == 0 {
			o.wire, o.pend = o.pend, o.wire[:0]
		} else {
			o.wire = append(o.wire, o.pend...)
			o.pend = o.pend[:0]
		}
	}
	return o.writeWireLocked(o.wire)
}

// pushBody is push for body bytes p the stream has not copied into pend:
// over TLS they are sealed from p, in plaintext written from p, and only
// what the socket does not take is kept. It reports false, having done
// nothing, when p must wait in pend instead (pend holds bytes, or the
// loop's ciphertext goes first). The caller owns the write side
// (o.owns) and has fd writes on.
func (o *outbound) pushBody(p []byte) (bool, error) {
	c := o.c
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wclosed {
		return false, ErrClientGone
	}
	if len(o.pend) > 0 || c.isTLS() && c.wpending {
		return false, nil
	}
	if c.isTLS() {
		if err := o.sealLocked(p); err != nil {
			return false, err
		}
		return true, o.writeWireLocked(o.wire)
	}
	if len(o.wire) > 0 {
		o.wire = append(o.wire, p...)
		return true, o.writeWireLocked(o.wire)
	}
	return true, o.writeWireLocked(p)
}

// sealLocked encrypts plain onto the wire, stamping the connection's first
// TLS response. The caller holds wmu.
func (o *outbound) sealLocked(plain []byte) error {
	var err error
	if o.wire, err = o.c.seal(o.wire, plain); err != nil {
		return err
	}
	if o.first {
		o.first = false
		o.c.tls.MarkFirstResponse(time.Now())
	}
	return nil
}

// writeWireLocked writes b (the wire, or body bytes with the wire empty)
// to the socket; what it does not take becomes the wire. The caller holds
// wmu.
func (o *outbound) writeWireLocked(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	rest, err := writeFD(o.c.fd, b)
	if len(rest) < len(b) {
		o.progress = time.Now()
	}
	o.wire = append(o.wire[:0], rest...)
	if err != nil {
		return ErrClientGone
	}
	return nil
}

// wait blocks until the write side is granted or the socket may take more,
// the request is cancelled, or the write timeout passes.
func (st *stream) wait() error {
	o, ex := &st.outbound, st.ex
	if !o.owns {
		if o.granted == nil {
			return ErrClientGone
		}
		if !awaitUnlessEnded(ex, o.granted) {
			return ErrClientGone
		}
		o.owns = true
		return nil
	}
	if ex.cancel.ended() {
		return ErrClientGone
	}
	if time.Since(o.progress) >= o.c.config().WriteTimeout {
		o.c.srv.pipe.writeTimeouts.Add(1)
		o.c.srv.logDebug("write timeout: the client stopped reading a streamed response", o.c)
		return ErrStreamWriteTimeout
	}
	if o.c.isTLS() && len(o.pend) > 0 && o.wirePending() {
		time.Sleep(time.Millisecond) // rare: the loop's own ciphertext is leaving
		return nil
	}
	if fd := o.c.socketFD(); fd < 0 || waitWritable(fd, pollWait) != nil {
		return ErrClientGone
	}
	return nil
}

func (o *outbound) wirePending() bool {
	o.c.wmu.Lock()
	defer o.c.wmu.Unlock()
	return o.c.wpending
}

// finishOutbound sends the rest after the handler returned. With the write
// side owned it waits until the socket took everything (bounded by the
// write timeout); otherwise the bytes, still plaintext, go back to the loop
// in the batch's output, which it writes in order like any response.
func (st *stream) finishOutbound() {
	o := &st.outbound
	if !o.owns && o.granted != nil {
		select {
		case <-o.granted:
			o.owns = true
		default:
		}
	}
	if !o.owns {
		st.b.out = append(st.b.out, o.pend...)
		o.pend = o.pend[:0]
		return
	}
	_ = st.fail(st.drain(0))
}

// grantReq asks the loop for a connection's write side on behalf of a
// streaming batch that is not direct.
type grantReq struct {
	c  *conn
	b  *batch
	ch chan struct{}
}

// Run is called on the loop.
func (g *grantReq) Run(context.Context) error {
	if g.c.closed {
		return nil
	}
	d := &g.c.h1
	d.grantWait = g
	d.tryGrant()
	return nil
}

// tryGrant gives the waiting stream the write side once its batch heads
// the queue and everything before it has left gnet's buffer. Loop only;
// called when the request arrives, after every callback's output and at
// every sweep.
func (d *h1Driver) tryGrant() {
	c, g := d.c, d.grantWait
	if g == nil {
		return
	}
	if c.closed || g.b.done || g.b.c != c || d.head != g.b && d.head == nil {
		d.grantWait = nil
		return
	}
	if d.head != g.b || len(c.out) > 0 {
		return
	}
	if c.gc.OutboundBuffered() > 0 {
		c.gnetFlush()
		if c.closed || c.gc.OutboundBuffered() > 0 {
			return
		}
	}
	if c.isTLS() && c.wpending {
		// gnet holds none of our output (above): wpending is from the
		// last write, whose ciphertext gnet has sent since. Nothing else
		// refreshes it, and without a write (a half-closed client's last
		// responses, reading off) the stream would wait for it for good.
		c.lockWire()
		c.wpending = c.gc.OutboundBuffered() > 0
		c.unlockWire()
		if c.wpending {
			return
		}
	}
	d.grantWait = nil
	close(g.ch)
}
