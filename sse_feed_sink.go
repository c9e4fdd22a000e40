package gwist

import (
	"net/http"
	"sync"
	"time"

	"github.com/gwist/gwist/engine"
)

// An SSEFeed under App.ServeHTTP: net/http's ResponseWriter cannot
// outlive the handler, so ServeHTTP, once the App's handlers have
// returned, writes the feed itself on net/http's goroutine for the
// request (run) until the feed ends. Send queues and returns at once, as
// on gwist's listeners, within the same WithMaxStreamQueued bound.

// sinkFeed is the ServeHTTP side of an SSEFeed.
type sinkFeed struct {
	max  int           // WithMaxStreamQueued
	wake chan struct{} // a write or a Close is waiting (capacity 1)
	done chan struct{}

	mu       sync.Mutex
	buf      []byte // queued for run
	writing  int    // bytes run is writing now
	closeReq bool
	ended    bool
	err      error
	fns      []func() // afterEnd's
}

// sinkFeed opens an SSEFeed under ServeHTTP.
func (c *Ctx) sinkFeed() (*SSEFeed, error) {
	rs, ok := c.ex.Sink().(*responseSink)
	if !ok || !canFlush(rs.w) {
		return nil, ErrFeedNeedsLoop
	}
	if c.ex.Request.Method == http.MethodHead || c.ResponseHeader("Content-Length") != "" {
		return nil, ErrCannotDetach
	}
	if err := c.startEventStream(c.rawFlush); err != nil {
		return nil, err
	}
	c.responded = true
	sf := &sinkFeed{max: c.app.maxStreamQueued(), wake: make(chan struct{}, 1), done: make(chan struct{})}
	rs.feed = sf
	return &SSEFeed{s: sf}, nil
}

// canFlush reports whether w, or a writer it wraps (Unwrap), can flush.
func canFlush(w http.ResponseWriter) bool {
	for w != nil {
		switch w.(type) {
		case http.Flusher, interface{ FlushError() error }:
			return true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return false
		}
		w = u.Unwrap()
	}
	return false
}

// write queues p; see SSEFeed.Send.
func (s *sinkFeed) write(p []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return s.err
	}
	if s.closeReq {
		return ErrFeedClosed
	}
	if len(s.buf)+s.writing > s.max {
		return ErrSlowClient
	}
	s.buf = append(s.buf, p...)
	s.signal()
	return nil
}

// close asks run to end the feed after what is queued.
func (s *sinkFeed) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended && !s.closeReq {
		s.closeReq = true
		s.signal()
	}
}

func (s *sinkFeed) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *sinkFeed) error() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *sinkFeed) afterEnd(fn func()) {
	s.mu.Lock()
	if !s.ended {
		s.fns = append(s.fns, fn)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	fn()
}

// end marks the feed ended (why), closes done and runs afterEnd's functions.
func (s *sinkFeed) end(why error) {
	s.mu.Lock()
	s.ended, s.err = true, why
	s.buf = nil
	fns := s.fns
	s.fns = nil
	s.mu.Unlock()
	close(s.done)
	for _, fn := range fns {
		fn()
	}
}

// run writes the feed to rs until it ends: on Close (after what was
// queued), when the client leaves (the request's context), when a
// Shutdown begins (drained), or when a write fails. A heartbeat comment
// goes out every heartbeat (none when <= 0) in which nothing was written.
func (s *sinkFeed) run(rs *responseSink, heartbeat time.Duration, drained <-chan struct{}) {
	var tick <-chan time.Time
	if heartbeat > 0 {
		t := time.NewTicker(heartbeat)
		defer t.Stop()
		tick = t.C
	}
	gone := rs.r.Context().Done()
	var spare []byte
	sent := false
	for {
		select {
		case <-gone:
			s.end(ErrClientGone)
			return
		case <-drained:
			s.close() // what is queued goes first
			drained = nil
		case <-tick:
			if !sent {
				s.mu.Lock()
				idle := len(s.buf) == 0
				s.mu.Unlock()
				if idle && s.send(rs, heartbeatComment) != nil {
					s.end(ErrClientGone)
					return
				}
			}
			sent = false
			continue
		case <-s.wake:
		}
		s.mu.Lock()
		out, closing := s.buf, s.closeReq
		s.buf, s.writing = spare[:0], len(out)
		s.mu.Unlock()
		if len(out) > 0 {
			if s.send(rs, out) != nil {
				s.end(ErrClientGone)
				return
			}
			sent = true
		}
		spare = out
		s.mu.Lock()
		s.writing = 0
		more := len(s.buf) > 0
		s.mu.Unlock()
		switch {
		case more:
			s.signal()
		case closing:
			s.end(ErrFeedClosed)
			return
		}
	}
}

var heartbeatComment = []byte(":\n\n")

// send writes p to the client and flushes it.
func (s *sinkFeed) send(rs *responseSink, p []byte) error {
	_, err := rs.WriteBody(p)
	return err
}

// maxStreamQueued is WithMaxStreamQueued, or its default.
func (a *App) maxStreamQueued() int {
	if n := a.cfg.engine.MaxStreamQueued; n > 0 {
		return n
	}
	return engine.DefaultMaxStreamQueued
}
