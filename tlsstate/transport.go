package tlsstate

import (
	"net"
	"time"
)

// transport is the net.Conn under a Conn's tls.Conn. Reads take what Feed
// buffered: during the handshake they wait for it, afterwards they return
// wouldBlock when nothing is buffered. Writes append to the outbound queue
// and never fail, because crypto/tls makes write errors sticky.
type transport struct{ c *Conn }

// Read implements net.Conn.
func (t *transport) Read(p []byte) (int, error) {
	c := t.c
	c.mu.Lock()
	for {
		if n := c.readLocked(p); n > 0 {
			c.mu.Unlock()
			return n, nil
		}
		if c.trErr != nil {
			err := c.trErr
			c.mu.Unlock()
			return 0, err
		}
		if !c.blocking {
			c.mu.Unlock()
			return 0, wouldBlock{}
		}
		// The handshake needs more of the peer's flight. If it wrote a
		// flight, that one is complete: hand it to the loop. If the loop
		// was refused bytes for lack of room, there is room now.
		var flight []byte
		if c.flight != nil && c.outDirty && len(c.out) > 0 {
			flight, c.out = c.out, nil // we send it ourselves
			c.outDirty = false
		}
		needNotify := c.outDirty || c.wantRoom
		c.outDirty, c.wantRoom = false, false
		done := c.ctx.Done()
		// No bytes and no error under c.mu: any token in signal is stale
		// (Feed adds bytes and token together under c.mu), so drop it and
		// really wait.
		select {
		case <-c.signal:
		default:
		}
		c.mu.Unlock()
		// Waiting for the client costs no CPU: give the limiter slot up
		// (before telling the loop, so the slot is free by the time anyone
		// reacts to the flight) and take one back afterwards.
		c.s.park(c)
		if flight != nil && c.sendFlight(flight) {
			needNotify = true
		}
		if needNotify {
			c.notifyUnlocked()
		}
		<-c.signal
		c.mu.Lock()
		if c.trErr != nil && c.bufferedLocked() == 0 {
			done = closedDone // nothing to read any more: leave without a slot
		}
		c.mu.Unlock()
		if !c.s.unpark(c, done) {
			c.mu.Lock()
			err := c.trErr
			c.mu.Unlock()
			if err == nil {
				err = net.ErrClosed
			}
			return 0, err
		}
		c.mu.Lock()
	}
}

// closedDone is a closed channel: unpark returns at once with it.
var closedDone = func() chan struct{} { ch := make(chan struct{}); close(ch); return ch }()

// sendFlight hands a flight to the flight writer and queues what it could
// not send in front of anything queued since (nothing is, normally). It
// reports whether the loop has something to write.
func (c *Conn) sendFlight(flight []byte) bool {
	rest := c.flight(flight)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(rest) > 0 && !c.phase.released() {
		old := c.out
		c.out = append(append(getBuf(), rest...), old...)
		c.outDirty = true
		putBuf(old)
	}
	putBuf(flight)
	return c.outDirty
}

func (c *Conn) notifyUnlocked() {
	c.mu.Lock()
	c.notifyLocked()
	c.mu.Unlock()
}

// readLocked copies buffered ciphertext into p, returning the buffer to
// the pool once it is drained.
func (c *Conn) readLocked(p []byte) int {
	if c.bufferedLocked() == 0 || len(p) == 0 {
		return 0
	}
	n := copy(p, c.in[c.inOff:])
	c.inOff += n
	if c.inOff == len(c.in) {
		putBuf(c.in)
		c.in, c.inOff = nil, 0
	}
	return n
}

// Write implements net.Conn. It never fails.
func (t *transport) Write(p []byte) (int, error) {
	c := t.c
	c.mu.Lock()
	if !c.phase.released() {
		c.queueLocked(p)
	}
	c.mu.Unlock()
	return len(p), nil
}

// Close implements net.Conn; crypto/tls calls it when the handshake
// context is cancelled.
func (t *transport) Close() error {
	c := t.c
	c.mu.Lock()
	if c.trErr == nil {
		c.trErr = net.ErrClosed
	}
	c.wakeLocked()
	c.mu.Unlock()
	return nil
}

// LocalAddr implements net.Conn; tlsstate does not know the addresses.
func (t *transport) LocalAddr() net.Addr { return noAddr{} }

// RemoteAddr implements net.Conn; tlsstate does not know the addresses.
func (t *transport) RemoteAddr() net.Addr { return noAddr{} }

// SetDeadline implements net.Conn as a no-op; timeouts are tlsstate's.
func (t *transport) SetDeadline(time.Time) error { return nil }

// SetReadDeadline implements net.Conn as a no-op.
func (t *transport) SetReadDeadline(time.Time) error { return nil }

// SetWriteDeadline implements net.Conn as a no-op.
func (t *transport) SetWriteDeadline(time.Time) error { return nil }

type noAddr struct{}

func (noAddr) Network() string { return "tlsstate" }
func (noAddr) String() string  { return "tlsstate" }
