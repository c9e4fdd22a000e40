//go:build linux && !poll_opt

package engine

import (
	"reflect"
	"testing"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// The read pause finds gnet's epoll descriptor by field names. If a gnet
// upgrade changes them this fails loudly here (in production the pause
// just turns itself off and the larger inbound cap applies).
func TestReadPauseLayout(t *testing.T) {
	if ok, why := readPauseSupported(); !ok {
		t.Fatalf("read pause unavailable: %s; update gnetreach_epoll.go for this gnet", why)
	}
	// The lookup fails on anything else than gnet's layout.
	for _, typ := range []reflect.Type{
		reflect.TypeFor[struct{ eng *int }](),
		reflect.TypeFor[struct{ Eng *gnet.Engine }](),
		reflect.TypeFor[int](),
	} {
		if l := findEpollPath(typ); l.err == "" {
			t.Errorf("findEpollPath(%v) found a path", typ)
		}
	}
}

// The read pause's self-test notices a descriptor that is not the loop's
// epoll set holding the connection.
func TestEpollReachSelfTestDetects(t *testing.T) {
	other, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(other) })
	notEpoll := socketPair(t)
	for name, epfd := range map[string]func(gnet.EventLoop) int{
		"not found":               func(gnet.EventLoop) int { return -1 },
		"another epoll set":       func(gnet.EventLoop) int { return other },
		"not an epoll descriptor": func(gnet.EventLoop) int { return notEpoll[0] },
	} {
		r := probeGnet(discardLogger(), probeHooks{epfd: epfd})
		if r.readPause == "" {
			t.Errorf("%s: the self-test passed", name)
		} else {
			t.Logf("%s: %s", name, r.readPause)
		}
		if r.fdWrites != "" {
			t.Errorf("%s: the worker-writes self-test failed too: %s", name, r.fdWrites)
		}
	}
}

// Without /proc the self-test rests on epoll_ctl alone, which refuses a
// descriptor that is not the connection's epoll set.
func TestEpollReachSelfTestWithoutProc(t *testing.T) {
	other, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(other) })
	fds := socketPair(t)
	if err := probeEpollCtl(other, fds[0]); err == nil {
		t.Error("epoll_ctl(MOD) accepted a descriptor not in the set")
	}
	if err := unix.EpollCtl(other, unix.EPOLL_CTL_ADD, fds[0], &unix.EpollEvent{Events: epollRead, Fd: int32(fds[0])}); err != nil {
		t.Fatal(err)
	}
	if err := probeEpollCtl(other, fds[0]); err != nil {
		t.Errorf("epoll_ctl(MOD) on a registered fd: %v", err)
	}
}

// With the read pause's reach off, the default inbound cap is the one for
// systems without a pause, and no connection's registration is touched.
func TestReadPauseOff(t *testing.T) {
	withReachOff(t, &readPauseReach)
	if ok, why := readPauseSupported(); ok || why == "" {
		t.Fatalf("readPauseSupported() = %v, %q", ok, why)
	}
	s, err := NewServer(Config{Inline: true}, hello)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.cfg.MaxInboundBytes; got != DefaultMaxInboundBytesNoPause {
		t.Errorf("MaxInboundBytes = %d, want %d", got, DefaultMaxInboundBytesNoPause)
	}
	c := &conn{srv: s, loop: &loopState{srv: s}}
	if c.setReadInterest(false) || c.loop.epfd != -1 {
		t.Errorf("setReadInterest went on with the reach off (epfd %d)", c.loop.epfd)
	}
}
