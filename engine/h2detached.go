//go:build unix

package engine

import (
	"time"
)

// A detached response on an HTTP/2 stream (see detached.go for HTTP/1):
// the handler returns and the stream stays open; the Detached's writes go
// through the stream's outbox like a streaming handler's, but never block
// (ErrSlowClient past the cap), and the loop's sweep sends the keep-alive
// bytes. The stream ends on Close (END_STREAM), on the client's reset or
// close, or when a drain begins.

// detach turns the stream's response into a detached one. Handler side.
func (s *h2Stream) detach(ex *Exchange, idleEvery time.Duration, idle []byte) (*Detached, error) {
	if s.onLoop() {
		return nil, ErrInlineStreaming
	}
	if ex.Header.Get("Content-Length") != "" || ex.bodiless() ||
		s.protocol != "" && ex.status()/100 == 2 { // a 2xx to an extended CONNECT opens a tunnel (errTunnel)
		return nil, ErrDetach
	}
	c := s.d.c
	d := &Detached{c: c, h2: s, idleEvery: idleEvery, done: make(chan struct{})}
	if len(idle) > 0 && idleEvery > 0 {
		d.idleBytes = append([]byte(nil), idle...)
	}
	if !s.flushed {
		s.flushed = true
		c.config().Workers.leaveBound(s.b)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	if s.out.fields == nil {
		s.setHead(ex, -1)
	}
	s.queueBody(ex.Body)
	ex.Body = ex.Body[:0]
	s.det = d
	c.srv.detached.Add(1)
	s.schedule()
	return d, nil
}

// detachedWrite queues p without waiting. Any goroutine, with the
// Detached's mu held.
func (s *h2Stream) detachedWrite(p []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if len(s.out.body)+s.backlog > s.d.c.config().MaxStreamQueued {
		return ErrSlowClient
	}
	s.queueBody(p)
	s.schedule()
	return nil
}

// detachedEnd ends the response after what was queued. Any goroutine,
// with the Detached's mu held.
func (s *h2Stream) detachedEnd() {
	s.mu.Lock()
	s.out.end = true
	s.schedule()
	s.mu.Unlock()
}

// detachedTick sends the keep-alive bytes after idleEvery without a write,
// and ends the response when a drain has begun. Loop only.
func (s *h2Stream) detachedTick(now int64) {
	d := s.det
	if s.sent >= sentEnding {
		return
	}
	if s.d.c.srv.draining.Load() {
		_ = d.Close()
		return
	}
	if d.idleBytes == nil || now-s.lastWrite < int64(d.idleEvery) || len(s.pend) > 0 || s.sent != sentHead {
		return
	}
	s.pend = append(s.pend, d.idleBytes...)
	s.lastWrite = now
	s.pump()
}

// detachedFinish closes the Detached's done when the stream is freed. Loop
// only.
func (s *h2Stream) detachedFinish() {
	d := s.det
	d.mu.Lock()
	if !d.ended {
		d.ended, d.err = true, ErrClientGone
	}
	d.mu.Unlock()
	if !d.finished {
		d.finished = true
		s.d.c.srv.detached.Add(-1)
		d.closeDone()
	}
}
