//go:build linux && !poll_opt

package engine

import (
	"reflect"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// gnet v2 keeps each loop's epoll descriptor unexported, in
// (*eventloop).poller (*netpoll.Poller).fd. The path is found by name once,
// at init, from the exported gnet.Engine (eng → ingress is an *eventloop);
// if gnet's layout changes the lookup fails, the read pause turns itself
// off (readPauseSupported reports why) and the engine falls back to the
// inbound cap. TestReadPauseLayout pins it. The poll_opt build of gnet
// registers pointers rather than fds with epoll, so it is excluded by the
// build tag.
var epollPath = findEpollPath()

type epollLayout struct {
	loopType  reflect.Type // *gnet.eventloop
	pollerIdx int          // eventloop.poller
	fdIdx     int          // netpoll.Poller.fd
	err       string       // why the pause is off; "" when it works
}

const (
	gnetPkg    = "github.com/panjf2000/gnet/v2"
	netpollPkg = "github.com/panjf2000/gnet/v2/pkg/netpoll"
)

func findEpollPath() epollLayout {
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
	eng, ok := field(reflect.TypeFor[gnet.Engine](), "eng", "engine", gnetPkg)
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
func readPauseSupported() (bool, string) { return epollPath.err == "", epollPath.err }

// loopEpollFD returns the epoll descriptor of a gnet loop, or -1.
func loopEpollFD(el gnet.EventLoop) int {
	if epollPath.err != "" || el == nil {
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

// gnet registers connections level-triggered with these (netpoll's
// ReadEvents and WriteEvents); the engine never turns on gnet's
// EdgeTriggeredIO, whose EPOLLET registrations these would overwrite.
const (
	epollRead  = unix.EPOLLIN | unix.EPOLLPRI
	epollWrite = unix.EPOLLOUT
)

// setReadInterest turns EPOLLIN on or off for the connection's fd, keeping
// EPOLLOUT while gnet holds output (without it gnet stops flushing). Loop
// only: the fd is ours while the connection is open. It reports false when
// the registration cannot be changed (the pause is then off for c).
func (c *conn) setReadInterest(on bool) bool {
	l := c.loop
	if l == nil {
		return false
	}
	if !l.epfdKnown {
		l.epfd, l.epfdKnown = loopEpollFD(c.el), true
	}
	if l.epfd < 0 {
		return false
	}
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
