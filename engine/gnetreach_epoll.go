//go:build linux && !poll_opt

package engine

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/panjf2000/gnet/v2"
	"github.com/panjf2000/gnet/v2/pkg/netpoll"
	"golang.org/x/sys/unix"
)

// The read pause (readpause.go) in gnet's epoll set. gnet has no read
// pause, and keeps each loop's epoll descriptor unexported, so this relies
// on gnet v2.9.7's layout and registrations (eventloop_unix.go,
// pkg/netpoll/poller_epoll_default.go):
//
//   - the descriptor is (*eventloop).poller (*netpoll.Poller).fd, an int,
//     and gnet.Conn.EventLoop() is that *eventloop; the path is found by
//     name once, at init, from the exported gnet.Engine (eng → ingress is
//     an *eventloop);
//   - gnet registers a connection level-triggered (the engine never turns
//     on EdgeTriggeredIO) for netpoll.ReadEvents, with netpoll.WriteEvents
//     added while it holds output, and the fd as the event's data; so
//     EPOLL_CTL_MOD with the same data and without EPOLLIN pauses reading
//     and gnet still flushes;
//   - gnet re-registers EPOLLIN by itself when its output drains: the pause
//     notices (readResumedByGnet) and counts it (PipeStats.ReadRearms).
//
// The self-test (probeEpoll, on the probe's OnOpen) finds the descriptor
// of a live loop, reads the probe's registration in it from
// /proc/self/fdinfo (when readable), and modifies it to no events and back.
// When the layout is not found or the self-test fails, readPauseSupported
// reports false: Config's MaxInboundBytes default is the larger one, and
// setReadInterest is never reached (loopEpollFD returns -1).
// TestReadPauseLayout and TestEpollReachSelfTest pin it. gnet's poll_opt
// build registers pointers rather than fds with epoll, so it is excluded
// by the build tag (gnetreach_noepoll.go).
var epollPath = findEpollPath(reflect.TypeFor[gnet.Engine]())

type epollLayout struct {
	loopType  reflect.Type // *gnet.eventloop
	pollerIdx int          // eventloop.poller
	fdIdx     int          // netpoll.Poller.fd
	err       string       // why the pause is off; "" when it works
}

const (
	gnetPkg    = gnetModule
	netpollPkg = gnetModule + "/pkg/netpoll"
)

// findEpollPath finds the loop's epoll descriptor from engine, the type
// of gnet.Engine (a test passes look-alikes).
func findEpollPath(engine reflect.Type) epollLayout {
	field := func(t reflect.Type, name, wantType, wantPkg string) (reflect.StructField, bool) {
		if t.Kind() != reflect.Struct {
			return reflect.StructField{}, false
		}
		f, ok := t.FieldByName(name)
		if !ok || len(f.Index) != 1 || f.Type.Kind() != reflect.Pointer {
			return f, false
		}
		e := f.Type.Elem()
		return f, e.Kind() == reflect.Struct && e.Name() == wantType && e.PkgPath() == wantPkg
	}
	eng, ok := field(engine, "eng", "engine", gnetPkg)
	if !ok {
		return epollLayout{err: "gnet.Engine has no eng *engine field"}
	}
	loop, ok := field(eng.Type.Elem(), "ingress", "eventloop", gnetPkg)
	if !ok {
		return epollLayout{err: "gnet engine has no ingress *eventloop field"}
	}
	poller, ok := field(loop.Type.Elem(), "poller", "Poller", netpollPkg)
	if !ok {
		return epollLayout{err: "gnet eventloop has no poller *netpoll.Poller field"}
	}
	fd, ok := poller.Type.Elem().FieldByName("fd")
	if !ok || len(fd.Index) != 1 || fd.Type.Kind() != reflect.Int {
		return epollLayout{err: "gnet netpoll.Poller has no fd int field"}
	}
	return epollLayout{loopType: loop.Type, pollerIdx: poller.Index[0], fdIdx: fd.Index[0]}
}

// readPauseSupported reports whether the read pause can work in this
// build, and why not.
func readPauseSupported() (bool, string) {
	if epollPath.err != "" {
		return false, epollPath.err
	}
	if !readPauseReach.on() {
		return false, readPauseReach.reason()
	}
	return true, ""
}

// readPauseAvailable: c's loop's epoll descriptor is known, so that its
// reading can be turned off (setReadInterest). Loop only.
func (c *conn) readPauseAvailable() bool {
	l := c.loop
	if l == nil {
		return false
	}
	if !l.epfdKnown {
		l.epfd, l.epfdKnown = loopEpollFD(c.el), true
	}
	return l.epfd >= 0
}

// loopEpollFD returns the epoll descriptor of a gnet loop, or -1 (also
// when the read pause's self-test failed).
func loopEpollFD(el gnet.EventLoop) int {
	if epollPath.err != "" || el == nil || !readPauseReach.on() {
		return -1
	}
	v := reflect.ValueOf(el)
	if v.Type() != epollPath.loopType || v.IsNil() {
		return -1
	}
	p := v.Elem().Field(epollPath.pollerIdx)
	if p.IsNil() {
		return -1
	}
	return int(p.Elem().Field(epollPath.fdIdx).Int())
}

// gnet's registrations (level-triggered: the engine never turns on
// EdgeTriggeredIO, whose EPOLLET registrations these would overwrite).
const (
	epollRead  = netpoll.ReadEvents
	epollWrite = netpoll.WriteEvents
)

// setReadInterest turns EPOLLIN on or off for the connection's fd, keeping
// EPOLLOUT while gnet holds output (without it gnet stops flushing). Loop
// only: the fd is ours while the connection is open. It reports false when
// the registration cannot be changed (the pause is then off for c).
func (c *conn) setReadInterest(on bool) bool {
	if !c.readPauseAvailable() {
		return false
	}
	l := c.loop
	var ev uint32
	if on {
		ev = epollRead
	}
	if c.gc.OutboundBuffered() > 0 {
		ev |= epollWrite
	}
	err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, c.fd, &unix.EpollEvent{Events: ev, Fd: int32(c.fd)})
	if err != nil {
		// ENOENT/EBADF/EINVAL: not the epoll set the fd is in. Never
		// guess again on this loop.
		c.srv.logDebug("read pause unavailable: epoll_ctl: "+err.Error(), c)
		l.epfd = -1
		return false
	}
	return true
}

// probeEpoll is the read pause's self-test, in the probe's OnOpen (gnet has
// just registered fd, and holds no output): epfd, found by loopEpollFD,
// must hold fd as gnet registers it, and take the pause and its undoing.
func probeEpoll(epfd, fd int) error {
	if epollPath.err != "" {
		return errors.New(epollPath.err)
	}
	if epfd < 0 {
		return errors.New("gnet.Conn.EventLoop() is not the *eventloop whose poller was found")
	}
	if ev, data, ok, err := epollRegistration(epfd, fd); err != nil {
		return err
	} else if ok && (ev&(unix.EPOLLIN|unix.EPOLLPRI|unix.EPOLLOUT|unix.EPOLLET) != epollRead || data != uint32(fd)) {
		return fmt.Errorf("gnet registered the connection with events %#x and data %d, not level-triggered reads (%#x) and its fd", ev, data, epollRead)
	}
	return probeEpollCtl(epfd, fd)
}

// probeEpollCtl pauses reading fd in epfd and resumes it, as gnet
// registered it.
func probeEpollCtl(epfd, fd int) error {
	for _, ev := range []uint32{0, epollRead} {
		if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_MOD, fd, &unix.EpollEvent{Events: ev, Fd: int32(fd)}); err != nil {
			return fmt.Errorf("epoll_ctl(MOD, %#x) on gnet's epoll descriptor: %w", ev, err)
		}
	}
	return nil
}

// epollRegistration reads fd's registration in the epoll set epfd from
// /proc/self/fdinfo ("tfd: FD events: MASK data: DATA ..."); ok is false
// when /proc cannot be read (the self-test then relies on epoll_ctl
// alone), err set when epfd is readable but fd is not in it.
func epollRegistration(epfd, fd int) (events, data uint32, ok bool, err error) {
	b, rerr := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", epfd))
	if rerr != nil {
		return 0, 0, false, nil
	}
	for _, line := range strings.Split(string(b), "\n") {
		var tfd int
		var ev uint32
		var d uint64
		if n, _ := fmt.Sscanf(line, "tfd: %d events: %x data: %x", &tfd, &ev, &d); n == 3 && tfd == fd {
			return ev, uint32(d), true, nil
		}
	}
	return 0, 0, false, errors.New("the connection's fd is not in the epoll set found in gnet's loop")
}
