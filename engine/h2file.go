//go:build unix

package engine

import (
	"io"
	"os"
)

// Exchange.SendFile over HTTP/2: there is no sendfile(2) under HTTP/2's
// framing, but the file's bytes can still skip a copy. Write would read
// them into a buffer and copy that into the stream's queue; sendFile reads
// them straight into the queue's buffer (out.body), a chunk at a time.
//
// While it reads, the buffer is off the stream (out.body is nil), so the
// loop's collect neither takes it nor sees it half filled; whatever was
// queued in it before goes out once the chunk is in. The stream cannot be
// freed meanwhile: that waits for the handler to return.

// h2FileChunk is the most of the file one read puts in the queue, and
// h2FileMinRead the least room worth reading into without growing the
// buffer (growing copies what is queued in it).
const (
	h2FileChunk   = 64 << 10
	h2FileMinRead = 16 << 10
)

// sendFile sends n bytes of f from off as the body's next part. The head
// and what the handler wrote before go first; the queue's cap, the
// declared Content-Length and a client's leaving hold as for Write. A file
// shorter than n cuts the stream (io.ErrUnexpectedEOF). Handler side.
func (s *h2Stream) sendFile(ex *Exchange, f *os.File, off, n int64) error {
	if s.onLoop() {
		return ErrNoSendfile // inline: the body is buffered whole
	}
	if err := s.flushWith(ex, nil); err != nil {
		return err
	}
	if ex.bodiless() {
		return nil // the head went out alone: no body follows it
	}
	for n > 0 {
		buf, chunk, err := s.reserveBody(ex, int(min(n, h2FileChunk)), n)
		if err != nil {
			return err
		}
		got, rerr := f.ReadAt(buf[len(buf):len(buf)+chunk], off)
		if err := s.commitBody(ex, buf, got); err != nil {
			return err
		}
		if got < chunk {
			if rerr == nil || rerr == io.EOF {
				rerr = io.ErrUnexpectedEOF // the file is shorter than said
			}
			s.abort() // cut even where no Content-Length was declared to cut it
			return rerr
		}
		off += int64(got)
		n -= int64(got)
	}
	return nil
}

// reserveBody takes out.body off the stream with room for up to want more
// bytes, for the handler to read into without the lock, and says how many
// to read: fewer than want when the buffer's room is enough for a read
// worth making, since growing it copies what is queued in it. A buffer it
// grows gets room for the rest of the file (left bytes) up to the queue's
// cap and a chunk past it, so that the chunks read while the loop is busy
// fill it without a second growth: growing one chunk at a time copied the
// queued bytes at each chunk, 3.5 % of the server's CPU sending 1 MiB
// files over h2. commitBody puts the buffer back. Handler side.
func (s *h2Stream) reserveBody(ex *Exchange, want int, left int64) (buf []byte, n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, 0, s.err
	}
	if err := s.checkDeclared(ex, int64(want)); err != nil {
		return nil, 0, err
	}
	s.useSpare()
	if n = min(want, cap(s.out.body)-len(s.out.body)); n < h2FileMinRead && n < want {
		ahead := s.d.c.config().MaxStreamQueued + h2FileChunk
		s.growBody(int(max(int64(want), min(left, int64(ahead)))))
		n = want
	}
	buf, s.out.body = s.out.body, nil
	return buf, n, nil
}

// commitBody puts back the buffer reserveBody took, with got more bytes in
// it, hands it over and waits while more than the cap is queued. Handler
// side.
func (s *h2Stream) commitBody(ex *Exchange, buf []byte, got int) error {
	s.mu.Lock()
	if len(buf)+got == 0 {
		s.keepSpare(buf) // nothing to hand over: an empty body would be taken as pend
		err := s.err
		s.mu.Unlock()
		return err
	}
	s.out.body = buf[:len(buf)+got]
	s.wrote += int64(got)
	s.schedule()
	return s.waitRoomUnlock(ex)
}
