//go:build unix

package engine

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// Worker writes: a worker writes (and, over TLS, encrypts) its responses
// to the connection's fd itself, behind gnet's back, while the loop has
// granted it the write side (direct.go, outbound.go, sendfile.go; a TLS
// handshake goroutine its flights, tls.go). gnet lets anyone read Fd(), but
// says nothing of writing to it; this relies on what gnet v2.9.7 does
// (connection_unix.go, eventloop_unix.go):
//
//   - Fd() is the connection's socket, and gnet holds no output of its own
//     beyond OutboundBuffered: with that at 0 a write to the fd goes out
//     in order with gnet's (gnet.Conn.Write writes straight to the fd when
//     its buffer is empty). The engine grants the write side only then.
//   - gnet closes the fd after OnClose returns (eventloop.close: OnClose,
//     flush, poller Delete, unix.Close), so a worker that writes under
//     conn.wmu while wclosed (set in OnClose) is false never writes to a
//     reused fd number.
//
// The self-test (probeFDOnOpen, gnetreach_probe.go) checks both on a probe
// connection. When it fails, fdWriteReach is off and the loop writes
// everything through gnet: no batch is direct (canWriteDirect), a stream
// hands its bytes to the loop (outbound_loop.go), sendfile answers
// ErrNoSendfile (the caller writes the bytes), and a TLS flight goes back
// to the state machine, which hands it to the loop (writeFlight).
//
// The loop's own calls on the fd while the connection is open (shutdown
// of the write side, a peek for input during a drain, TCP_QUICKACK, the
// send queue on Linux) use Fd() as gnet's socket setters do, and stay on.

// writeFD writes p to the non-blocking fd and returns what is left.
func writeFD(fd int, p []byte) ([]byte, error) {
	for len(p) > 0 {
		n, err := sysWrite(fd, p)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.EAGAIN):
			return p, nil
		case err != nil:
			return p[:0], err
		}
		p = p[n:]
	}
	return p, nil
}

// waitWritable waits up to d for fd to take more output (poll(2), on a
// worker, never the loop). An error means the fd is unusable.
func waitWritable(fd int, d time.Duration) error {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	_, err := unix.Poll(fds, int(d/time.Millisecond))
	if err != nil && !errors.Is(err, unix.EINTR) {
		return err
	}
	return nil
}

// sendfileFD sends up to count bytes of the file infd from *off to the
// socket fd (sendfile(2)).
func sendfileFD(fd, infd int, off *int64, count int) (int, error) {
	return unix.Sendfile(fd, infd, off, count)
}

// shutdownWrite sends the FIN once gnet holds no output. Loop only.
func shutdownWrite(fd int) { _ = unix.Shutdown(fd, unix.SHUT_WR) }

// socketHasInput reports whether fd has bytes to read (or a pending error or
// EOF, which reading will find).
func socketHasInput(fd int) bool {
	var b [1]byte
	n, _, err := unix.Recvfrom(fd, b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
	return n > 0 || (err != nil && err != unix.EAGAIN && err != unix.EINTR)
}

// probeFDOnOpen is the worker-writes self-test in the probe's OnOpen: fd
// must be the enrolled socket, gnet must hold nothing, and a write to the
// fd followed by one through gnet must both go out at once (readProbe
// checks their order at the other end).
func probeFDOnOpen(gc gnet.Conn, fd int, ino uint64) error {

	if err := sameSocket(fd, ino); err != nil {
		return err
	}
	if n := gc.OutboundBuffered(); n != 0 {
		return fmt.Errorf("gnet holds %d bytes of output on a new connection", n)
	}
	if rest, err := writeFD(fd, []byte(probeDirect)); err != nil || len(rest) > 0 {
		return fmt.Errorf("a write to the connection's fd failed (%v, %d bytes left)", err, len(rest))
	}
	if n, err := gc.Write([]byte(probeGnetW)); err != nil || n != len(probeGnetW) {
		return fmt.Errorf("gnet.Conn.Write after a direct write: %d, %v", n, err)
	}
	if n := gc.OutboundBuffered(); n != 0 {
		return fmt.Errorf("gnet kept %d bytes a socket with room would take", n)
	}
	return nil
}

// readProbe reads what the probe's OnOpen wrote from the pair's other
// end: want, in order, within a second.
func readProbe(peer int, want string) error {
	got := make([]byte, 0, len(want))
	buf := make([]byte, len(want))
	deadline := time.Now().Add(time.Second)
	for len(got) < len(want) {
		n, err := readPeer(peer, buf[:len(want)-len(got)], deadline)
		if n == 0 && (err == nil || errors.Is(err, os.ErrDeadlineExceeded)) {
			break // the end of the stream, or of the wait
		}
		if err != nil {
			return err
		}
		got = append(got, buf[:n]...)
	}
	if string(got) != want {
		return fmt.Errorf("the peer read %q, want %q: a direct write and gnet's did not go out as written", got, want)
	}
	return nil
}

// readPeer reads once from peer (a probe pair's end, non-blocking) into
// b, waiting until deadline for it to be readable: n > 0 bytes, or 0 and
// no error at the end of the stream; os.ErrDeadlineExceeded when the
// deadline passed first.
func readPeer(peer int, b []byte, deadline time.Time) (int, error) {
	for {
		n, err := unix.Read(peer, b)
		if err == nil {
			return n, nil
		}
		if !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
			return 0, fmt.Errorf("reading the probe's peer: %w", err)
		}
		left := time.Until(deadline)
		if left <= 0 {
			return 0, os.ErrDeadlineExceeded
		}
		fds := []unix.PollFd{{Fd: int32(peer), Events: unix.POLLIN}}
		if _, err := unix.Poll(fds, int(left/time.Millisecond)+1); err != nil && !errors.Is(err, unix.EINTR) {
			return 0, fmt.Errorf("poll on the probe's peer: %w", err)
		}
	}
}
