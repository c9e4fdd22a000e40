package tlsstate

import (
	"container/list"
	"crypto/tls"
	"sync"
	"sync/atomic"
	"time"
)

// Server holds what the TLS connections of one listener share: the
// configuration, the handshake limiter and the statistics. Its methods are
// safe for concurrent use.
//
// The limiter hands out slots for handshake computation, not for whole
// handshakes: a handshake goroutine gives its slot up while it waits for the
// client's next flight (it parks) and takes one again when the flight
// arrives. At most MaxParked goroutines park; when one more needs to, the
// oldest parked handshake is evicted (it fails with ReasonEvicted and its
// connection closes). So clients that send a ClientHello and go silent cost
// a bounded number of goroutines and never keep live clients out: a live
// client is evicted only if MaxParked newer handshakes park within its round
// trip, and each of those costs the attacker a server flight's worth of our
// CPU (a few hundred microseconds), so with the defaults that takes a few
// hundred milliseconds on any number of cores.
//
// A certificate lookup that turns out slow (see Config.SlowLookup) gives its
// slot up the same way, until it returns; at most MaxSlowLookups may wait so
// (lookup.go).
type Server struct {
	tls        *tls.Config
	timeout    time.Duration
	maxHS      int
	maxParked  int
	maxQueue   int
	slowLookup time.Duration
	maxSlow    int32
	slow       atomic.Int32 // handshake goroutines inside a slow lookup
	draining   atomic.Int32 // released handshakes still to read the peer's bytes (phDraining), at most maxHS
	mu         sync.Mutex
	computing  int // goroutines holding a slot
	alive      int // handshake goroutines alive: computing, parked or reclaiming
	reclaim    int // parked goroutines waiting for a slot to go on
	freed      chan struct{}
	queue      list.List // of *Conn waiting for a goroutine
	parked     list.List // of *Conn whose goroutine waits for its client, oldest first
	stats      counters  // atomics, plus its own lock for maps
}

// startDraining reserves a place for a released handshake that keeps the
// peer's unread bytes (Conn.Release); false when MaxHandshakes hold one.
func (s *Server) startDraining() bool {
	if s.draining.Add(1) > int32(s.maxHS) {
		s.draining.Add(-1)
		return false
	}
	return true
}

// NewServer validates cfg, applies the defaults and returns a Server.
func NewServer(cfg Config) (*Server, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	checkBufferReach()
	s := &Server{
		tls:        c.TLS,
		timeout:    c.HandshakeTimeout,
		maxHS:      c.MaxHandshakes,
		maxParked:  c.MaxParked,
		maxQueue:   c.MaxQueued,
		slowLookup: c.SlowLookup,
		maxSlow:    int32(min(c.MaxSlowLookups, 1<<30)),
	}
	wrapLookups(s.tls)
	s.stats.init()
	return s, nil
}

// hasLookups reports whether the config has a callback that sees the
// handshake's context (ClientHelloInfo.Context).
func (s *Server) hasLookups() bool {
	return s.tls.GetCertificate != nil || s.tls.GetConfigForClient != nil ||
		s.tls.GetEncryptedClientHelloKeys != nil
}

// admit gives c a handshake goroutine or a place in the queue. c must be
// in phQueued. It reports whether c was queued, and ok false when both
// are full.
func (s *Server) admit(c *Conn) (queued, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.computing < s.maxHS && s.reclaim == 0 {
		s.computing++
		s.alive++
		c.slot = true
		go s.worker(c)
		return false, true
	}
	if s.queue.Len() < s.maxQueue {
		c.elem = s.queue.PushBack(c)
		return true, true
	}
	return false, false
}

// worker runs handshakes: c's, then those of queued connections, until
// the queue is empty. Queued connections thus never start a goroutine.
func (s *Server) worker(c *Conn) {
	_ = growStack()
	for c != nil {
		if tc, ctx, ok := c.begin(); ok {
			c.run(tc, ctx)
		}
		c = s.next(c)
	}
}

// next is called when prev's handshake is over: it passes the goroutine
// (and prev's slot) to the oldest queued connection, or retires both.
func (s *Server) next(prev *Conn) *Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := prev.slot
	prev.slot = false
	if !held && s.computing < s.maxHS && s.reclaim == 0 {
		held = true
		s.computing++
	}
	if held && s.reclaim == 0 {
		if c := s.popLocked(); c != nil {
			c.slot = true
			return c
		}
	}
	if held {
		s.releaseLocked()
	}
	s.alive--
	return nil
}

// park gives c's slot up while its goroutine waits for the client. The slot
// goes to a parked goroutine that has its flight, else to a queued
// connection (on a new goroutine), else back to the pool. If that makes
// more than maxParked parked goroutines, the oldest is evicted.
func (s *Server) park(c *Conn) {
	s.mu.Lock()
	s.giveUpSlotLocked(c)
	c.elem, c.parked = s.parked.PushBack(c), true
	var victim *Conn
	if s.parked.Len() > s.maxParked {
		victim = s.parked.Remove(s.parked.Front()).(*Conn)
		victim.elem, victim.parked = nil, false
	}
	s.mu.Unlock()
	if victim != nil {
		victim.evict()
	}
}

// giveUpSlotLocked takes c's slot, if it holds one, and passes it to a
// queued connection (on a new goroutine) or back to the pool.
func (s *Server) giveUpSlotLocked(c *Conn) {
	if !c.slot {
		return
	}
	c.slot = false
	if next := s.popIfRoomLocked(); next != nil {
		next.slot = true
		s.alive++
		go s.worker(next)
	} else {
		s.releaseLocked()
	}
}

func (s *Server) popIfRoomLocked() *Conn {
	if s.reclaim != 0 {
		return nil
	}
	return s.popLocked()
}

// unpark takes a slot back for c once its client's flight has arrived,
// waiting for one if all are busy. It reports false, taking no slot, when
// done is closed (the handshake was evicted, timed out or abandoned).
func (s *Server) unpark(c *Conn, done <-chan struct{}) bool {
	s.mu.Lock()
	if c.parked {
		s.parked.Remove(c.elem)
		c.elem, c.parked = nil, false
	}
	s.reclaim++
	for {
		select {
		case <-done:
			s.reclaim--
			s.mu.Unlock()
			return false
		default:
		}
		if s.computing < s.maxHS {
			break
		}
		if s.freed == nil {
			s.freed = make(chan struct{})
		}
		ch := s.freed
		s.mu.Unlock()
		select {
		case <-ch:
		case <-done:
		}
		s.mu.Lock()
	}
	s.reclaim--
	s.computing++
	c.slot = true
	s.mu.Unlock()
	return true
}

func (s *Server) releaseLocked() {
	s.computing--
	if s.freed != nil {
		close(s.freed)
		s.freed = nil
	}
}

func (s *Server) popLocked() *Conn {
	e := s.queue.Front()
	if e == nil {
		return nil
	}
	c := s.queue.Remove(e).(*Conn)
	c.elem = nil
	return c
}

// dequeue removes c from the queue if it is still there.
func (s *Server) dequeue(c *Conn) {
	s.mu.Lock()
	if c.elem != nil && !c.parked {
		s.queue.Remove(c.elem)
		c.elem = nil
	}
	s.mu.Unlock()
}
