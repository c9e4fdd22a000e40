//go:build unix

package engine

// Streamed request bodies over HTTP/2 (see inbody.go for HTTP/1; the pipe
// they share is bodypipe.go). The request is dispatched when its headers
// arrive; DATA goes into the stream's pipe on the loop, and the handler
// reads it from there. The peer's window is refilled only as the handler
// reads (bodyTaken: http2.Conn.Consumed), so a handler that does not read
// stops its client after one window: the pipe never holds more than the
// stream's receive window, and all streams of a connection together not
// more than the connection's. The bytes left unread when the handler
// returns are given back with the stream's Release.

// h2creditEvery is how many read bytes are given back to the peer at once.
const h2creditEvery = 16 << 10

// h2body is a stream's request body: the loop's side of its pipe.
type h2body struct {
	s   *h2Stream
	p   *bodyPipe
	max int64 // the route's limit; 0 none
	// cont: the client sent "expect: 100-continue" and waits for the 100
	// that the handler's first read sends (bodyWanted); no body read
	// timer runs meanwhile. Loop only.
	cont bool
}

// newH2Body makes s's request body stream to its handler, at most max
// bytes (0: no limit).
func newH2Body(s *h2Stream, max int64) *h2body {
	b := &h2body{s: s, max: max}
	window := int(s.d.c.config().H2.StreamWindow)
	if window <= 0 {
		window = 64 << 10 // the pipe grows as DATA comes
	}
	size := window
	if cl := s.ex.Request.ContentLength; cl >= 0 && cl < int64(size) {
		size = int(cl)
	}
	b.p = newBodyPipe(s.d.c, b, h2creditEvery, size)
	return b
}

// feed takes DATA for the stream on the loop: past the route's limit the
// body fails with 413.
func (b *h2body) feed(data []byte, end bool) {
	p := b.p
	if b.max > 0 {
		p.mu.Lock()
		over := p.received+int64(len(data)) > b.max
		p.mu.Unlock()
		if over {
			p.fail(ErrBodyTooLarge, 413)
			return
		}
	}
	p.put(data)
	if end {
		p.end(nil)
	}
}

// isClosed: the stream is gone (its unread bytes go back with Release).
func (b *h2body) isClosed() bool { return b.s.d.c.closed || b.s.freed }

// bodyTaken gives what the handler read back to the peer. Loop only.
func (b *h2body) bodyTaken(n int) {
	if n > 0 {
		b.s.d.h2.Consumed(b.s.id, n)
		b.s.d.output()
	}
}

// bodyWanted sends the interim 100 (a HEADERS with :status 100) that a
// request with "expect: 100-continue" waits for, when its handler first
// reads (RFC 9110 section 10.1.1), unless the response's head went out
// first. Loop only.
func (b *h2body) bodyWanted() {
	s := b.s
	if !b.cont {
		return
	}
	b.cont = false
	if s.sent != sentNothing || !b.p.takeInterim() {
		return
	}
	if s.d.h2.WriteHeaders(s.id, 100, nil, false) == nil {
		s.bodyAt = s.d.c.srv.now() // the body read timer starts now
		s.d.output()
	}
}
