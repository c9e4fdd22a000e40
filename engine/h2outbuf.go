//go:build unix

package engine

import (
	"slices"
	"unsafe"
)

// A streamed HTTP/2 response's body travels in buffers that go round
// between the handler's side and the loop instead of being allocated per
// hand-over: the handler appends to out.body (queueBody); the loop takes
// that buffer as its pend (collect) and lends it to http2.Conn, which
// frames straight from it (pump, http2.Conn.LendData); once all of it is
// framed the buffer goes back as the stream's spare, which the handler's
// next write fills. Past maxPooledBody the buffers come from the large-body
// pools (largebody.go) and go back to them when the stream is freed, so
// that a stream does not allocate its own either. A stream holds at most
// five body buffers at a time (h2PooledBufs); before, two, with a fresh
// out.body per hand-over. Small responses never get this far: a stream's
// h2BodyBufs is allocated when it first has a buffer worth keeping.

// minSpareBody: smaller buffers are not worth keeping.
const minSpareBody = 4 << 10

// h2BodyBufs are a stream's body buffers in their round. Under the
// stream's mu.
type h2BodyBufs struct {
	// spare: a buffer the loop is done with, for the handler's next
	// writes.
	spare []byte
	// pendBuf: the whole buffer the loop's pend came in, given back
	// (pendDrained) when http2.Conn has taken all of pend, when the stream
	// is cut, or when an append moves pend to a larger array.
	pendBuf []byte
	// pooled: which buffers go back to the large-body pools; overflow:
	// one more was taken than pooled can hold (checked when the stream is
	// freed, not where it happens: that is under mu, on the handler's
	// side).
	pooled   h2PooledBufs
	overflow bool
}

// track records a buffer taken from the large-body pools.
func (b *h2BodyBufs) track(buf []byte) {
	if !b.pooled.add(buf) {
		b.overflow = true
	}
}

// h2PooledBufs are the stream's body buffers that came from the
// large-body pools, by their first byte: only these go back to them. At
// most five live at once: the handler's out.body, the spare, the loop's
// pend, the out.body it is taking over (collect holds it between its two
// turns of mu) and the one http2.Conn still frames lent bytes from.
type h2PooledBufs [5]*byte

// add records b, reporting false when five are recorded already (never
// expected: b is then left to the collector).
func (p *h2PooledBufs) add(b []byte) bool {
	for i := range p {
		if p[i] == nil {
			p[i] = unsafe.SliceData(b)
			return true
		}
	}
	return false
}

// remove reports whether b was one, forgetting it.
func (p *h2PooledBufs) remove(b []byte) bool {
	if cap(b) == 0 {
		return false
	}
	d := unsafe.SliceData(b)
	for i := range p {
		if p[i] == d {
			p[i] = nil
			return true
		}
	}
	return false
}

// bodyBufs returns the stream's h2BodyBufs, allocating them. Called with
// mu held.
func (s *h2Stream) bodyBufs() *h2BodyBufs {
	if s.bufs == nil {
		s.bufs = new(h2BodyBufs)
	}
	return s.bufs
}

// maxSpareBody is the largest buffer a stream keeps for reuse: twice the
// queue bound, which is about as far as out.body grows before the handler
// waits.
func (s *h2Stream) maxSpareBody() int { return 2 * s.d.c.config().MaxStreamQueued }

// queueBody appends p to what the handler hands over (see growBody).
// Called with mu held.
func (s *h2Stream) queueBody(p []byte) {
	if len(p) == 0 {
		return
	}
	s.growBody(len(p))
	s.out.body = append(s.out.body, p...)
}

// growBody makes room in out.body for n more bytes: it starts in the
// spare buffer when out.body has none, and moves to a pooled buffer once
// out.body, or the body handed over so far, is over maxPooledBody. Called
// with mu held.
func (s *h2Stream) growBody(n int) {
	s.useSpare()
	need := len(s.out.body) + n
	if need <= cap(s.out.body) {
		return
	}
	old := s.out.body
	if need > maxPooledBody || s.wrote > maxPooledBody {
		// (Once a body is this large, the next piece starts in a pooled
		// buffer too, rather than in one that is outgrown at once.)
		if b := takeLargeBuf(need); b != nil {
			s.out.body = append(b, old...)
			s.bodyBufs().track(s.out.body)
			s.releaseBuf(old)
			return
		}
	}
	s.out.body = slices.Grow(old, n)
	s.releaseBuf(old) // (when a pooled one was outgrown past the largest class)
}

// useSpare makes the spare buffer out.body when out.body has none. Called
// with mu held.
func (s *h2Stream) useSpare() {
	if s.out.body == nil && s.bufs != nil && s.bufs.spare != nil {
		s.out.body, s.bufs.spare = s.bufs.spare, nil
	}
}

// handOverBody makes the returned handler's whole body (over
// maxPooledBody) the stream's out.body without copying it: a buffer
// GrowBody gave from the pools goes back to them with the stream's.
// Called with mu held, out.body empty.
func (s *h2Stream) handOverBody(ex *Exchange) {
	s.releaseBuf(s.out.body)
	body, pooled := ex.takeLargeBody()
	s.out.body = body
	if pooled {
		s.bodyBufs().track(body)
	}
}

// notePend: the loop took b (out.body) as its pend. Loop only.
func (s *h2Stream) notePend(b []byte) {
	if cap(b) < minSpareBody {
		return // neither kept nor pooled
	}
	s.mu.Lock()
	s.bodyBufs().pendBuf = b[:0]
	s.mu.Unlock()
}

// pendDrained: the loop's pend is gone from the buffer it came in
// (http2.Conn took it, the stream was cut, or an append moved pend to a
// larger array), so that buffer is free. Called with mu held.
func (s *h2Stream) pendDrained() {
	if s.bufs == nil || s.bufs.pendBuf == nil {
		return
	}
	b := s.bufs.pendBuf
	s.bufs.pendBuf = nil
	if !sameBuf(b, s.lent) {
		s.keepSpare(b)
	} // else reclaimLent frees it once http2.Conn has framed it
}

// lendPend records that http2.Conn took bytes of pend without a copy: the
// buffer they are in (s.lent) waits for reclaimLent. A pend not in a
// buffer of the round (a small one, or one an append moved) is nobody
// else's to reuse. Called with mu held; loop only.
func (s *h2Stream) lendPend() {
	if s.bufs != nil && s.bufs.pendBuf != nil {
		s.lent = s.bufs.pendBuf
	}
}

// reclaimLent frees the lent buffer once http2.Conn frames nothing more
// from it: as the spare, unless the loop's pend is still in it. Loop only.
func (s *h2Stream) reclaimLent() {
	if s.lent == nil || s.d.h2.Lent(s.id) {
		return
	}
	lent := s.lent
	s.lent = nil
	s.mu.Lock()
	if !sameBuf(lent, s.bufs.pendBuf) {
		s.keepSpare(lent)
	}
	s.mu.Unlock()
}

// sameBuf reports whether a and b are (in) the same buffer, by their
// first byte as h2PooledBufs knows them.
func sameBuf(a, b []byte) bool {
	return cap(a) > 0 && cap(b) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}

// keepSpare offers b (emptied: nobody reads it any more) for the
// handler's next writes, or gives it back. Called with mu held.
func (s *h2Stream) keepSpare(b []byte) {
	if cap(b) >= minSpareBody && cap(b) <= s.maxSpareBody() && (s.bufs == nil || s.bufs.spare == nil) {
		s.bodyBufs().spare = b[:0]
		return
	}
	s.releaseBuf(b)
}

// releaseBuf gives b back to the pools if it came from them; nothing may
// read or write it after. Called with mu held.
func (s *h2Stream) releaseBuf(b []byte) {
	if s.bufs != nil && s.bufs.pooled.remove(b) {
		putLargeBuf(b)
	}
}

// releaseBufs gives back every body buffer the stream holds, when it is
// freed. Loop only.
func (s *h2Stream) releaseBufs() {
	s.pend = nil
	s.mu.Lock()
	s.releaseBuf(s.out.body)
	s.out.body = nil
	lost := false
	if b := s.bufs; b != nil {
		if s.lent != nil {
			s.d.releaseLent(s.id, s.lent, &b.pooled)
			s.lent = nil
		}
		s.releaseBuf(b.spare)
		s.releaseBuf(b.pendBuf)
		lost = b.overflow || b.pooled != h2PooledBufs{}
		s.bufs = nil
	}
	s.mu.Unlock()
	if gwistcheck && lost {
		panic("gwist: an HTTP/2 stream lost track of a pooled body buffer")
	}
}

// h2MaxParkedLent bounds the buffers of freed streams one connection keeps
// for http2.Conn to frame from (by capacity). The last bytes of a response
// are usually framed by the next Output; past this, bytes that wait for a
// peer's window are copied instead (Unlend), so that streams finished in
// front of a shut window cannot pin a buffer each.
const h2MaxParkedLent = 2 << 20

// h2LentBuf is a freed stream's pooled buffer that http2.Conn still frames
// lent bytes from: it goes back to the pools once Lent(id) is false.
type h2LentBuf struct {
	id  uint32
	buf []byte
}

// releaseLent gives back a freed stream's lent buffer: at once when
// http2.Conn frames nothing from it (or holds a copy of what it has not
// framed yet, past h2MaxParkedLent), after a later Output otherwise.
// Called with the stream's mu held; loop only.
func (d *h2Driver) releaseLent(id uint32, buf []byte, pooled *h2PooledBufs) {
	if d.h2.Lent(id) && d.lentParked+cap(buf) <= h2MaxParkedLent && pooled.remove(buf) {
		d.lentAfterFree = append(d.lentAfterFree, h2LentBuf{id: id, buf: buf})
		d.lentParked += cap(buf)
		return
	}
	d.h2.Unlend(id)
	if pooled.remove(buf) {
		putLargeBuf(buf)
	}
}

// reclaimLentAfterFree gives back the freed streams' buffers http2.Conn
// no longer frames from. Loop only, after Output.
func (d *h2Driver) reclaimLentAfterFree() {
	keep := d.lentAfterFree[:0]
	for _, l := range d.lentAfterFree {
		if d.h2.Lent(l.id) {
			keep = append(keep, l)
			continue
		}
		d.lentParked -= cap(l.buf)
		putLargeBuf(l.buf)
	}
	clear(d.lentAfterFree[len(keep):])
	d.lentAfterFree = keep
}
