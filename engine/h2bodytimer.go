//go:build unix

package engine

// The body read timeout of an HTTP/2 stream: Config.BodyReadTimeout, as for
// HTTP/1. It runs while the engine waits for request body bytes the peer
// may send: a buffered body until its END_STREAM, a streamed body while
// its handler has read everything received (while the handler is behind,
// the peer's window is what holds it back, not the peer). Any DATA
// restarts it. On expiry the stream is answered 408 (a streamed body's
// Read fails with ErrBodyReadTimeout, and the handler's answer becomes
// 408 unless it streams), and the stream is then reset (NO_ERROR: the
// response is complete, the request is not), which frees the worker a
// stalled upload held.

// bodyTimedOut runs at every sweep: it restarts the clock while nothing
// is awaited from the peer, and answers a stream whose body stalled.
// Reports whether the stream may have been freed. Loop only.
func (s *h2Stream) bodyTimedOut(now int64) bool {
	if !s.awaitingBody() {
		s.bodyAt = now
		return false
	}
	c := s.d.c
	if now-s.bodyAt < int64(c.config().BodyReadTimeout) {
		return false
	}
	c.srv.pipe.bodyTimeouts.Add(1)
	c.srv.logDebug("HTTP/2 request body read timeout", c)
	s.bodyAt = now
	if s.body != nil {
		s.body.p.fail(ErrBodyReadTimeout, 408)
		return false
	}
	s.ex.refused, s.ex.refusedErr = 408, ErrBodyReadTimeout
	s.d.dispatch(s)
	return true
}

// awaitingBody: request body bytes are expected from the peer and it may
// send them. Loop only.
func (s *h2Stream) awaitingBody() bool {
	switch {
	case s.sent == sentCut || s.protocol != "":
		return false // a tunnel (WebSocket) has keepalives of its own
	case s.body != nil:
		return !s.body.cont && s.body.p.awaitingPeer() // nothing is awaited before the 100
	}
	return s.handler == h2Receiving
}
