//go:build unix

package engine

import "time"

// Direct write: when a batch is the only output a connection has pending,
// the worker that served it writes (and, over TLS, encrypts) the responses
// itself instead of handing them to the loop first. That takes the costliest
// step of a request, the write system call, off the event loop and gets the
// response out one loop wake-up sooner.
//
// A batch written in full need not come back at all: the worker settles it
// (one atomic) and the loop finishes its bookkeeping the next time it looks
// at the connection (the client's next request, the sweep, or the close).
// That saves the wake-up of the loop and a system call per request. When the
// loop looked first (it has more queued behind the batch, or is paused), it
// marks the batch watched and the worker hands it back as before.
//
// Safety rests on three rules:
//   - The loop grants it only when nothing else of the connection is queued
//     or buffered (canWriteDirect); until the batch comes back every later
//     output waits in the queue behind it, so the worker owns the write side.
//   - The fd is touched only under wmu while wclosed is false; the loop sets
//     wclosed in OnClose, before gnet closes the fd (whose number is reused).
//   - Over TLS, ciphertext leaves the state machine only under wmu, and a
//     worker writes only while gnet holds none of it (wpending), so records go
//     out in sequence order.

// canWriteDirect: may batch b, about to be queued, write its own output?
// Only when nothing of the connection is queued before it. Pipelined
// batches are direct too: a pipelining client (wrk, a proxy) sends its next
// batch once it has the responses, so the worker's write does not meet the
// loop's read on the socket, and the batch is spared its second crossing
// of cores (measured 2026-12-04, 16-deep wrk pipelining, 5 alternating
// rounds: 962k req/s against 875k single-only, fasthttp 977k). A request
// whose body streams is not direct: the loop may have to write its
// "100 Continue" while the handler runs (inbody.go). Nothing is direct
// while worker writes are off (gnetreach_fd.go).
func (d *h1Driver) canWriteDirect(b *batch) bool {
	c := d.c
	if d.head != nil || len(c.out) > 0 || c.closingWhenDone() || c.gc.OutboundBuffered() > 0 || d.upgrading || !fdWriteReach.on() {
		return false
	}
	for _, ex := range b.exs {
		if ex.w.in != nil {
			return false
		}
	}
	return !c.isTLS() || c.established
}

// How a direct batch comes back to the loop. The worker moves it
// running → settling → settled; the loop moves running → watched and
// settling → settlingWatched. A watched batch comes back through Execute.
const (
	directRunning         uint32 = iota // on its worker, serving or writing
	directWatched                       // the loop looked while running
	directSettling                      // written in full; the worker frees its exchanges
	directSettlingWatched               // the loop looked while settling
	directSettled                       // the loop's to collect
)

// watchedState is s once the loop has looked: running → watched,
// settling → settlingWatched.
func watchedState(s uint32) uint32 {
	if s == directSettling {
		return directSettlingWatched
	}
	return directWatched
}

// settle tries to finish a fully written direct batch on its worker,
// without waking the loop. The worker gives the exchanges back to their
// pool itself, so a connection ramp does not leave thousands of them parked
// until the sweep collects their batches. It fails when the loop is
// watching; the worker then hands the batch back through Execute. The
// worker must not touch b after a successful settle.
func (b *batch) settle() bool {
	if !b.dstate.CompareAndSwap(directRunning, directSettling) {
		return false
	}
	b.releaseExchanges()
	return b.dstate.CompareAndSwap(directSettling, directSettled)
}

// settling: the worker owns b.exs (it is giving them back). Loop only,
// after collectDirect (which turns settling into settlingWatched); dstate
// stays directRunning for batches that are not direct.
func (b *batch) settling() bool {
	return b.dstate.Load() == directSettlingWatched
}

// collectDirect runs on the loop before it uses the queue. When the head is
// a direct batch its worker settled, the batch is done (true: collect
// does the rest); when the worker is still on it, it is marked watched so
// that it comes back through Execute.
func (d *h1Driver) collectDirect() bool {
	b := d.head
	if b == nil || !b.direct || b.done {
		return false
	}
	for {
		switch s := b.dstate.Load(); s {
		case directRunning, directSettling:
			if b.dstate.CompareAndSwap(s, watchedState(s)) {
				return false
			}
		case directSettled:
			b.done = true
			return true
		default: // watched: Execute brings it back
			return false
		}
	}
}

// writeDirect runs on the worker with b's serialized responses in b.out.
// What it could not write stays in b.out for the loop: plaintext, or with
// b.cipher set, ciphertext to send as it is. It reports whether everything
// was written.
func (c *conn) writeDirect(b *batch) bool {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wclosed {
		b.out = b.out[:0]
		return false
	}
	if !c.isTLS() {
		// Keep b.out's array (rest is its tail): the pooled batch reuses it.
		rest, err := writeFD(c.fd, b.out)
		b.out, b.writeErr = append(b.out[:0], rest...), err
		return len(b.out) == 0 && err == nil
	}
	if c.wpending {
		return false // gnet still holds ciphertext: let the loop queue behind it
	}
	bp := wirePool.Get().(*[]byte)
	wire, err := c.seal((*bp)[:0], b.out)
	if err != nil {
		wirePool.Put(bp)
		b.out, b.writeErr = b.out[:0], err
		return false
	}
	if b.firstTLS {
		c.tls.MarkFirstResponse(time.Now())
	}
	rest, err := writeFD(c.fd, wire)
	b.out = append(b.out[:0], rest...)
	b.cipher, b.writeErr = true, err
	*bp = wire[:0]
	wirePool.Put(bp)
	return len(b.out) == 0 && err == nil
}

// socketFD is the connection's socket for a worker that waits on it
// outside wmu: the loop may move the connection onto a duplicate of its
// socket (peerdone_linux.go), and does so under wmu. -1 once closed.
func (c *conn) socketFD() int {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wclosed {
		return -1
	}
	return c.fd
}

// lockWire and unlockWire take wmu on the loop around writes of ciphertext.
func (c *conn) lockWire() {
	c.wmu.Lock()
	c.loopHoldsWire = true
}

func (c *conn) unlockWire() {
	c.loopHoldsWire = false
	c.wmu.Unlock()
}
