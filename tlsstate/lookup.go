package tlsstate

import (
	"crypto/tls"
	"time"
)

// The server's certificate lookups (GetConfigForClient, GetCertificate) run
// on the handshake goroutine, inside crypto/tls. Most answer from memory in
// microseconds, but one may wait on the network for seconds: autocert runs
// a whole ACME order inside GetCertificate for a name's first handshake.
// Two rules keep such a wait from hurting:
//
//   - The handshake timeout bounds the waits for the client, not the
//     server's own work: it is paused during a lookup (the time is kept in
//     Timings.Lookup).
//   - A lookup that runs past Config.SlowLookup gives its limiter slot up
//     until it returns, as a goroutine waiting for its client does, so slow
//     lookups never hold the slots that other handshakes need (the ACME
//     server's own validation handshake among them). At most MaxSlowLookups
//     goroutines wait in slow lookups; while that many do, new lookups are
//     refused at once (ReasonLookupRefused) rather than started.
//
// The Conn's one timer serves both: during a lookup it is armed for
// SlowLookup instead of the handshake deadline, and onTimeout tells the two
// apart by c.lookup.

// lookupState is where a handshake goroutine stands in a certificate
// lookup. Guarded by Conn.mu.
type lookupState uint8

const (
	lookupNone lookupState = iota // not in a lookup: the timer is the handshake deadline
	lookupFast                    // in a lookup shorter than SlowLookup so far: the timer watches for that
	lookupSlow                    // in a slow lookup: no slot, no timer, counted in Server.slow
)

// wrapLookups wraps cfg's lookups (cfg is the Server's own clone) so that
// they follow the rules above. Configs that GetConfigForClient returns have
// their GetCertificate wrapped too (on a clone, per handshake).
func wrapLookups(cfg *tls.Config) {
	if get := cfg.GetCertificate; get != nil {
		cfg.GetCertificate = wrapGetCertificate(get)
	}
	if get := cfg.GetConfigForClient; get != nil {
		cfg.GetConfigForClient = func(h *tls.ClientHelloInfo) (*tls.Config, error) {
			var c *tls.Config
			err := lookup(h, func() (err error) {
				c, err = get(h)
				return err
			})
			if err != nil || c == nil || c.GetCertificate == nil {
				return c, err
			}
			c = c.Clone()
			c.GetCertificate = wrapGetCertificate(c.GetCertificate)
			return c, nil
		}
	}
}

func wrapGetCertificate(get func(*tls.ClientHelloInfo) (*tls.Certificate, error)) func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
		var cert *tls.Certificate
		err := lookup(h, func() (err error) {
			cert, err = get(h)
			return err
		})
		if err != nil {
			return nil, err
		}
		return cert, nil
	}
}

// lookup runs f, the application's lookup, for the handshake of h. An
// error from the limiter or the deadline wins over f's result, which is
// then dropped. Called outside a tlsstate handshake (h.Conn is not ours),
// it just runs f.
func lookup(h *tls.ClientHelloInfo, f func() error) error {
	t, ok := h.Conn.(*transport)
	if !ok {
		return f()
	}
	c := t.c
	if err := c.beginLookup(); err != nil {
		return err
	}
	start := time.Now()
	ferr := f()
	if err := c.endLookup(time.Since(start)); err != nil {
		return err
	}
	return ferr
}

// beginLookup pauses the handshake deadline and arms the timer to notice a
// slow lookup. It refuses the lookup while MaxSlowLookups are slow, and
// fails it when the handshake is over or its deadline has just passed.
func (c *Conn) beginLookup() error {
	if c.s.slow.Load() >= c.s.maxSlow {
		return errLookupRefused
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.phase != phRunning || c.trErr != nil {
		return c.stoppedErrLocked()
	}
	if !c.timer.Stop() && !time.Now().Before(c.deadlineLocked()) {
		// The deadline fired and onTimeout waits for c.mu: fail here, so
		// that run sees the timeout whichever comes first.
		c.trErr = errTimeout
		c.stopLocked(errTimeout)
		return errTimeout
	}
	c.lookup = lookupFast
	c.timer.Reset(c.s.slowLookup)
	return nil
}

// endLookup re-arms the handshake deadline, moved by the lookup's duration
// d, and after a slow lookup takes a slot back (the deadline runs while it
// waits for one).
func (c *Conn) endLookup(d time.Duration) error {
	c.mu.Lock()
	c.stamps.lookup += d
	slow := c.lookup == lookupSlow
	c.lookup = lookupNone
	err := c.rearmLocked()
	var done <-chan struct{}
	if slow && err == nil {
		done = c.ctx.Done()
	}
	c.mu.Unlock()
	if !slow {
		return err
	}
	c.s.slow.Add(-1)
	if err != nil {
		return err
	}
	if !c.s.unpark(c, done) {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.stoppedErrLocked()
	}
	return nil
}

// rearmLocked sets the timer back to the handshake deadline after a
// lookup, or fails the handshake if it has passed.
func (c *Conn) rearmLocked() error {
	if c.phase != phRunning || c.trErr != nil {
		return c.stoppedErrLocked()
	}
	c.timer.Stop() // the slow-lookup watch; a firing already under way finds lookupNone
	rem := time.Until(c.deadlineLocked())
	if rem <= 0 {
		c.trErr = errTimeout
		c.stopLocked(errTimeout)
		return errTimeout
	}
	c.timer.Reset(rem)
	return nil
}

// markSlowLocked runs on the timer goroutine, under c.mu, when a lookup has
// run SlowLookup: its goroutine gives its slot up until the lookup returns.
// The count may pass MaxSlowLookups by the lookups that had already begun
// (at most MaxHandshakes, since a fast lookup holds a slot).
func (c *Conn) markSlowLocked() {
	c.lookup = lookupSlow
	c.s.slow.Add(1)
	c.s.stats.slowLookups.Add(1)
	c.s.mu.Lock()
	c.s.giveUpSlotLocked(c)
	c.s.mu.Unlock()
}

// deadlineLocked is when the handshake times out: HandshakeTimeout after
// the accept, plus the time spent in lookups.
func (c *Conn) deadlineLocked() time.Time {
	return c.stamps.accepted.Add(c.s.timeout + c.stamps.lookup)
}

// stoppedErrLocked is the error a lookup returns for a handshake that was
// failed, abandoned or released meanwhile.
func (c *Conn) stoppedErrLocked() error {
	if c.trErr != nil {
		return c.trErr
	}
	return errAborted
}
