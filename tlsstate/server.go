package tlsstate

import (
	"container/list"
	"crypto/tls"
	"sync"
	"time"
)

// Server holds what the TLS connections of one listener share: the
// configuration, the handshake limiter and the statistics. Its methods are
// safe for concurrent use.
type Server struct {
	tls      *tls.Config
	timeout  time.Duration
	maxHS    int
	maxQueue int

	mu     sync.Mutex
	active int       // handshake goroutines alive
	queue  list.List // of *Conn waiting for a goroutine
	stats  counters  // atomics, plus its own lock for maps
}

// NewServer validates cfg, applies the defaults and returns a Server.
func NewServer(cfg Config) (*Server, error) {
	c, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	s := &Server{
		tls:      c.TLS,
		timeout:  c.HandshakeTimeout,
		maxHS:    c.MaxHandshakes,
		maxQueue: c.MaxQueued,
	}
	s.stats.init()
	return s, nil
}

// admit gives c a handshake goroutine or a place in the queue. c must be
// in phQueued. It reports false when both are full.
func (s *Server) admit(c *Conn) bool {
	s.mu.Lock()
	if s.active < s.maxHS {
		s.active++
		s.mu.Unlock()
		go s.worker(c)
		return true
	}
	if s.queue.Len() < s.maxQueue {
		c.elem = s.queue.PushBack(c)
		s.mu.Unlock()
		return true
	}
	s.mu.Unlock()
	return false
}

// worker runs handshakes: c's, then those of queued connections, until
// the queue is empty. Queued connections thus never start a goroutine.
func (s *Server) worker(c *Conn) {
	for c != nil {
		if tc, ctx, ok := c.begin(); ok {
			c.run(tc, ctx)
		}
		c = s.next()
	}
}

// next pops the oldest queued connection, or retires the calling worker.
func (s *Server) next() *Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.queue.Front(); e != nil {
		c := s.queue.Remove(e).(*Conn)
		c.elem = nil
		return c
	}
	s.active--
	return nil
}

// dequeue removes c from the queue if it is still there.
func (s *Server) dequeue(c *Conn) {
	s.mu.Lock()
	if c.elem != nil {
		s.queue.Remove(c.elem)
		c.elem = nil
	}
	s.mu.Unlock()
}
