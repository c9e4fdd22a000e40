//go:build linux

package sockopt

import (
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// control runs f with the raw fd behind a TCP conn or listener.
func control(t *testing.T, sc interface {
	Control(func(fd uintptr)) error
}, f func(fd int)) {
	t.Helper()
	if err := sc.Control(func(fd uintptr) { f(int(fd)) }); err != nil {
		t.Fatalf("Control: %v", err)
	}
}

// pair returns a connected client and server TCPConn on loopback.
func pair(t *testing.T) (client, server *net.TCPConn, ln *net.TCPListener) {
	t.Helper()
	l, err := net.ListenTCP("tcp4", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	c, err := net.DialTCP("tcp4", nil, l.Addr().(*net.TCPAddr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	s, err := l.AcceptTCP()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return c, s, l
}

func rawConn(t *testing.T, c *net.TCPConn) interface{ Control(func(uintptr)) error } {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	return rc
}

func TestNoDelay(t *testing.T) {
	_, s, _ := pair(t)
	control(t, rawConn(t, s), func(fd int) {
		for _, want := range []bool{false, true, false} {
			if err := NoDelay(fd, want); err != nil {
				t.Fatalf("NoDelay(%v): %v", want, err)
			}
			got, err := GetNoDelay(fd)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Fatalf("GetNoDelay = %v after NoDelay(%v)", got, want)
			}
		}
	})
}

func TestQuickAck(t *testing.T) {
	_, s, _ := pair(t)
	control(t, rawConn(t, s), func(fd int) {
		// Put the socket in delayed-ACK (pingpong) mode first so that the
		// read-back proves QuickAck changed something.
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_QUICKACK, 0); err != nil {
			t.Fatal(err)
		}
		if on, err := GetQuickAck(fd); err != nil || on {
			t.Fatalf("after clearing: GetQuickAck = %v, %v; want false", on, err)
		}
		if err := QuickAck(fd); err != nil {
			t.Fatal(err)
		}
		if on, err := GetQuickAck(fd); err != nil || !on {
			t.Fatalf("after QuickAck: GetQuickAck = %v, %v; want true", on, err)
		}
	})
}

func TestDeferAccept(t *testing.T) {
	_, _, ln := pair(t)
	rc, err := ln.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	control(t, rc, func(fd int) {
		if err := DeferAccept(fd, 5); err != nil {
			t.Fatal(err)
		}
		got, err := GetDeferAccept(fd)
		if err != nil {
			t.Fatal(err)
		}
		// The kernel rounds up to its SYN-ACK retransmission schedule.
		if got < 5 || got > 60 {
			t.Fatalf("GetDeferAccept = %d after DeferAccept(5)", got)
		}
		if err := DeferAccept(fd, 0); err != nil {
			t.Fatal(err)
		}
		if got, err := GetDeferAccept(fd); err != nil || got != 0 {
			t.Fatalf("GetDeferAccept = %d, %v after DeferAccept(0)", got, err)
		}
	})
}

func TestKeepAlive(t *testing.T) {
	_, s, _ := pair(t)
	control(t, rawConn(t, s), func(fd int) {
		if err := KeepAlive(fd, 37*time.Second, 11*time.Second, 4); err != nil {
			t.Fatal(err)
		}
		on, idle, intvl, cnt, err := GetKeepAlive(fd)
		if err != nil {
			t.Fatal(err)
		}
		if !on || idle != 37*time.Second || intvl != 11*time.Second || cnt != 4 {
			t.Fatalf("GetKeepAlive = %v %v %v %d; want true 37s 11s 4", on, idle, intvl, cnt)
		}
		// Sub-second and non-positive values are clamped, not rejected.
		if err := KeepAlive(fd, 0, 500*time.Millisecond, 0); err != nil {
			t.Fatal(err)
		}
		on, idle, intvl, cnt, err = GetKeepAlive(fd)
		if err != nil || !on || idle != time.Second || intvl != time.Second || cnt != 1 {
			t.Fatalf("clamped GetKeepAlive = %v %v %v %d %v", on, idle, intvl, cnt, err)
		}
	})
}

func TestBadFD(t *testing.T) {
	if err := QuickAck(-1); err == nil {
		t.Fatal("QuickAck(-1) succeeded")
	}
	if err := NoDelay(-1, true); err == nil {
		t.Fatal("NoDelay(-1) succeeded")
	}
	if err := DeferAccept(-1, 1); err == nil {
		t.Fatal("DeferAccept(-1) succeeded")
	}
	if err := KeepAlive(-1, time.Second, time.Second, 1); err == nil {
		t.Fatal("KeepAlive(-1) succeeded")
	}
	if _, err := GetNoDelay(-1); err == nil {
		t.Fatal("GetNoDelay(-1) succeeded")
	}
	if _, err := GetQuickAck(-1); err == nil {
		t.Fatal("GetQuickAck(-1) succeeded")
	}
	if _, err := GetDeferAccept(-1); err == nil {
		t.Fatal("GetDeferAccept(-1) succeeded")
	}
	if _, _, _, _, err := GetKeepAlive(-1); err == nil {
		t.Fatal("GetKeepAlive(-1) succeeded")
	}
}
