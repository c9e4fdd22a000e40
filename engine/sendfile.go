//go:build unix

package engine

import (
	"errors"
	"io"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gwist/gwist/http1"
)

// ErrNoSendfile: the response cannot take its body from a file here
// (HTTP/1 over TLS, an Inline server, chunked framing, a detached
// response, worker writes off: gnetreach_fd.go); the caller writes the
// bytes itself instead. Over HTTP/2 the file is read into the stream's
// queue (h2file.go).
var ErrNoSendfile = errors.New("gwist: sendfile is not available for this response")

// sendfileMax bounds one sendfile call, so that the write timeout and a
// client's leaving are looked at between calls.
const sendfileMax = 1 << 20

// sendFile sends a file's bytes as an HTTP/1 body (Exchange.SendFile):
// plaintext only, with a Content-Length or close-delimited.
func (w *h1Worker) sendFile(ex *Exchange, f *os.File, off, n int64) error {
	if w.b.c.isTLS() || (w.st != nil && w.st.detached != nil) || !fdWriteReach.on() ||
		(w.st == nil && ex.Header.Get("Content-Length") == "" && ex.Request.ProtoMinor > 0) {
		return ErrNoSendfile // the last: it would stream chunked
	}
	if w.st == nil {
		if err := w.startStream(ex); err != nil {
			return err
		}
	}
	st := w.st
	if st.err != nil {
		return st.err
	}
	switch st.framing {
	case http1.FramingNone:
		st.sent += n // HEAD: the head said the length; no body goes out
		return nil
	case http1.FramingLength:
		if n > st.declared-st.sent {
			st.broken = true
			st.err = ErrBodyLength
			return st.err
		}
	case http1.FramingClose:
	default:
		return ErrNoSendfile
	}
	// What was written before goes first.
	if err := st.fail(st.drain(0)); err != nil {
		return err
	}
	fd := int(f.Fd())
	defer runtime.KeepAlive(f)
	for n > 0 {
		sent, err := st.outbound.sendfile(fd, &off, int(min(n, sendfileMax)))
		st.sent += int64(sent)
		n -= int64(sent)
		switch {
		case errors.Is(err, unix.EAGAIN):
			if err := st.wait(); err != nil {
				return st.fail(err)
			}
		case errors.Is(err, ErrClientGone):
			return st.fail(err)
		case err != nil:
			return st.fail(err) // the file could not be read
		case sent == 0:
			return st.fail(io.ErrUnexpectedEOF) // the file is shorter than said
		}
	}
	return nil
}

// sendfile sends up to count bytes of the file infd from *off to the
// socket, under the write side's lock. A failure to write to the socket is
// ErrClientGone; EAGAIN means the socket is full.
func (o *outbound) sendfile(infd int, off *int64, count int) (int, error) {
	c := o.c
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wclosed {
		return 0, ErrClientGone
	}
	for {
		n, err := sendfileFD(c.fd, infd, off, count)
		if n > 0 {
			o.progress = time.Now()
		}
		switch {
		case errors.Is(err, unix.EINTR):
			if n > 0 {
				return n, nil
			}
			continue
		case errors.Is(err, unix.EAGAIN):
			return max(n, 0), unix.EAGAIN
		case errors.Is(err, unix.EPIPE), errors.Is(err, unix.ECONNRESET), errors.Is(err, unix.ENOTCONN):
			return 0, ErrClientGone
		case err != nil:
			return 0, err
		}
		return n, nil
	}
}
