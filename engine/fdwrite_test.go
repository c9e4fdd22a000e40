//go:build unix

package engine

import (
	"bytes"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/testkit"
)

// tcpPair returns both ends of a loopback TCP connection; dial options
// apply to the dialed end.
func tcpPair(t *testing.T, opts ...testkit.DialOption) (dialed, accepted *net.TCPConn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dialed = testkit.Dial(t, ln.Addr().String(), opts...)
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return dialed, c.(*net.TCPConn)
}

// writeFDOn runs writeFD on c's (non-blocking) descriptor.
func writeFDOn(t *testing.T, c *net.TCPConn, p []byte) (rest []byte, err error) {
	t.Helper()
	rc, cerr := c.SyscallConn()
	if cerr != nil {
		t.Fatal(cerr)
	}
	if cerr = rc.Control(func(fd uintptr) { rest, err = writeFD(int(fd), p) }); cerr != nil {
		t.Fatal(cerr)
	}
	return rest, err
}

// TestWriteFDShortAndLong: both of sysWrite's ways (a raw system call up
// to rawWriteMax, unix.Write beyond) deliver every byte in order.
func TestWriteFDShortAndLong(t *testing.T) {
	for _, size := range []int{1, 1500, 64 << 10, 64<<10 + 1, 256 << 10} {
		w, r := tcpPair(t)
		p := bytes.Repeat([]byte("0123456789abcdef"), size/16+1)[:size]
		got := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(r); got <- b }()
		rest := p
		for len(rest) > 0 {
			var err error
			if rest, err = writeFDOn(t, w, rest); err != nil {
				t.Fatalf("%d bytes: %v", size, err)
			}
			if len(rest) > 0 {
				time.Sleep(time.Millisecond) // the socket is full: the reader drains it
			}
		}
		w.Close()
		if b := <-got; !bytes.Equal(b, p) {
			t.Fatalf("%d bytes written, %d read back (equal: %v)", size, len(b), bytes.Equal(b[:min(len(b), len(p))], p[:min(len(b), len(p))]))
		}
	}
}

// TestWriteFDFullSocketLeavesRest: on a socket that takes no more,
// writeFD returns what is left and no error (EAGAIN is not a failure).
func TestWriteFDFullSocketLeavesRest(t *testing.T) {
	w, _ := tcpPair(t, testkit.SendBuffer(16<<10)) // the peer never reads
	p := make([]byte, 4<<20)
	rest, err := writeFDOn(t, w, p)
	if err != nil || len(rest) == 0 || len(rest) == len(p) {
		t.Fatalf("4 MiB to a peer that does not read: %d left, err %v; want some written, the rest left, no error", len(rest), err)
	}
	small := make([]byte, 512)
	if rest, err := writeFDOn(t, w, small); err != nil || len(rest) != len(small) {
		t.Fatalf("512 bytes more to the full socket: %d left, err %v; want all 512 left, no error", len(rest), err)
	}
}

// TestWriteFDResetPeerFails: a write to a connection the peer reset
// reports the error.
func TestWriteFDResetPeerFails(t *testing.T) {
	w, r := tcpPair(t)
	if err := r.SetLinger(0); err != nil {
		t.Fatal(err)
	}
	r.Close() // RST
	var err error
	testkit.WaitFor(t, 5*time.Second, "a write error after the peer's reset", func() bool {
		_, err = writeFDOn(t, w, []byte("x"))
		return err != nil
	})
	if !errors.Is(err, syscall.ECONNRESET) && !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write after the peer's reset: %v, want ECONNRESET or EPIPE", err)
	}
}
