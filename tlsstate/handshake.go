package tlsstate

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"time"
)

// begin moves a queued connection to running and hands the worker its
// tls.Conn. It reports false if the connection was released, aborted or
// timed out while queued.
func (c *Conn) begin() (*tls.Conn, context.Context, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.phase != phQueued {
		return nil, nil, false
	}
	c.phase = phRunning
	c.stamps.mark(&c.stamps.started, time.Now())
	return c.tc, c.ctx, true
}

// run performs the handshake on the worker goroutine and publishes the
// result before notifying the loop. After it returns, the goroutine never
// touches the tls.Conn again.
//
// crypto/tls gives the context to the config's lookups
// (ClientHelloInfo.Context) and, when it can be cancelled, registers a
// close with it and derives one more (a few hundred bytes and two
// registrations per handshake). The transport already fails a stopped
// handshake's reads, so only a config with lookups is given the context.
func (c *Conn) run(tc *tls.Conn, ctx context.Context) {
	if !c.s.hasLookups() {
		ctx = context.Background()
	}
	err := tc.HandshakeContext(ctx)
	var cs tls.ConnectionState
	if err == nil {
		// Safe here: this goroutine owns the handshake mutex's only user.
		cs = tc.ConnectionState()
	}
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.phase == phDraining || c.phase == phLeaving {
		c.drainedLocked(err, &cs, now)
		return
	}
	if c.phase != phRunning {
		return // released or aborted; that path counted it
	}
	if err == nil && c.trErr != nil {
		err = c.trErr // timed out as it finished
	}
	if err != nil {
		c.failLocked(c.handshakeReasonLocked(err), err)
		c.notifyLocked()
		return
	}
	c.timer.Stop()
	c.timer = nil // an established connection keeps no timer
	c.cancel()
	c.ctx, c.cancel = nil, nil // nor a context: idle connections stay small
	c.blocking = false
	c.signal = nil // only a blocking Read waits on it; wakeLocked skips nil
	c.stamps.mark(&c.stamps.established, now)
	c.acme = cs.NegotiatedProtocol == ProtoACMETLS
	c.phase = phDone
	c.s.stats.established(&cs, &c.stamps)
	c.notifyLocked()
}

// handshakeReasonLocked is why a handshake failed with err: what stopped
// its transport, if anything did, or what crypto/tls reported.
func (c *Conn) handshakeReasonLocked(err error) Reason {
	switch c.trErr {
	case errTimeout:
		return ReasonTimeout
	case errEvicted:
		return ReasonEvicted
	case errPeerGone:
		return ReasonClientGone
	}
	return classifyHandshake(err)
}

// drainedLocked ends a handshake whose connection was released while it
// ran (Release): it counts the handshake as established or failed, as the
// peer's bytes made it, and frees what Release left to the goroutine.
func (c *Conn) drainedLocked(err error, cs *tls.ConnectionState, now time.Time) {
	if err == nil {
		c.stamps.mark(&c.stamps.established, now)
		c.s.stats.established(cs, &c.stamps)
	} else {
		c.s.stats.failed[c.handshakeReasonLocked(err)].Add(1)
	}
	if c.phase == phDraining {
		c.s.draining.Add(-1)
	}
	c.phase = phReleased
	c.stopLocked(ErrClosed)
	c.freeBuffersLocked()
}

// onTimeout runs on a timer goroutine when the handshake deadline passes,
// or, during a certificate lookup, when the lookup has become slow
// (lookup.go).
func (c *Conn) onTimeout() {
	c.mu.Lock()
	switch c.phase {
	case phWaiting, phQueued:
		c.failLocked(ReasonTimeout, errTimeout)
		c.mu.Unlock()
		// Out of the queue before the loop hears of the failure, so that
		// what it then reads (Stats().Queued) is already true.
		c.s.dequeue(c)
		c.mu.Lock()
		c.notifyLocked()
		c.mu.Unlock()
		return
	case phRunning, phDraining, phLeaving:
		switch c.lookup {
		case lookupFast:
			c.markSlowLocked()
		case lookupSlow:
			// A late firing: a slow lookup has no timer.
		default:
			if rem := time.Until(c.deadlineLocked()); rem > 0 {
				// A late slow-lookup firing: the lookup is over and
				// moved the deadline.
				c.timer.Reset(rem)
				break
			}
			// Wake the goroutine; run classifies the error as a timeout.
			c.trErr = errTimeout
			c.stopLocked(errTimeout)
		}
	}
	c.mu.Unlock()
}

// evict fails a parked handshake to make room for a newer one (see
// Server.park). A flight that arrived meanwhile saves it: the goroutine is
// about to leave the parked set anyway.
func (c *Conn) evict() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.phase != phRunning || c.trErr != nil || c.bufferedLocked() > 0 {
		return
	}
	c.trErr = errEvicted
	c.stopLocked(errEvicted)
}

// notifyLocked tells the engine there is something for the loop. It runs
// under c.mu so that no notification can follow Release, nor one come
// while the loop is in Yield (it calls Process right after instead).
func (c *Conn) notifyLocked() {
	if c.notify != nil && !c.phase.released() && !c.yielding {
		c.notify()
	}
}

// classifyHandshake maps a crypto/tls handshake error to a Reason.
func classifyHandshake(err error) Reason {
	if errors.Is(err, errLookupRefused) {
		return ReasonLookupRefused
	}
	var rh tls.RecordHeaderError
	if errors.As(err, &rh) {
		return ReasonBadRecord
	}
	if isRemoteAlert(err) {
		return ReasonAlert
	}
	return ReasonHandshakeError
}

// classifyRecord maps an error from reading records after the handshake.
func classifyRecord(err error) Reason {
	if isRemoteAlert(err) {
		return ReasonAlert
	}
	return ReasonBadRecord
}

// isRemoteAlert reports whether crypto/tls reported an alert from the
// peer; it wraps those in a *net.OpError with Op "remote error".
func isRemoteAlert(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "remote error"
}
