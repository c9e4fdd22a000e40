//go:build linux && !poll_opt

package engine

import (
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// probeRawAccept is the raw accept's self-test (gnetreach_accept_linux.go),
// run on the probe client once its enrolled probe has opened and closed:
// enrolled is that connection. It registers one end of a new socket pair
// with rawRegister on the client's one loop, which gnet must open as a
// connection like enrolled, with the fd, addresses and context given,
// write through, and close, fd and all.
func probeRawAccept(cli *gnet.Client, enrolled gnet.Conn, h probeHooks) error {
	if v := gnetVersion(); v != verifiedGnet {
		return fmt.Errorf("gnet %s is not %s, whose unexported functions were verified", v, verifiedGnet)
	}
	if enrolled == nil {
		return errors.New("gnet did not open the enrolled probe")
	}
	loops, err := gnetLoops(cli)
	if err != nil {
		return err
	}
	if h.rawLoops != nil {
		loops = h.rawLoops(loops)
	}
	if len(loops) != 1 || loops[0].gel != enrolled.EventLoop() {
		return fmt.Errorf("found %d loops in the one-loop probe client, not the loop gnet opened a connection on", len(loops))
	}
	t := reflect.TypeOf(enrolled)
	gnetConnType.CompareAndSwap(nil, &t)
	if want := *gnetConnType.Load(); t != want {
		return fmt.Errorf("gnet's connection is a %v, was a %v", t, want)
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	peer, fd := fds[0], fds[1]
	defer unix.Close(peer)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return err
	}
	rp := &rawProbe{fd: fd, ino: uint64(st.Ino), done: make(chan struct{}),
		local:  &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1},
		remote: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2), Port: 2}}
	l := loops[0]
	l.opened = &rp.opened
	failed := func(err error) { rp.fail("gnet could not register the socket: " + err.Error()); close(rp.done) }
	if err := rawRegister(&l, fd, rp.local, rp.remote, rp, failed, nil); err != nil {
		unix.Close(fd)
		return fmt.Errorf("handing the socket to gnet's loop: %w", err)
	}
	select {
	case <-rp.done:
	case <-time.After(time.Second):
		return errors.New("gnet did not open and close the socket within a second")
	}
	if why := rp.failure(); why != "" {
		return errors.New(why)
	}
	if err := readProbe(peer, probeRaw); err != nil {
		return err
	}
	// gnet closes the fd after OnClose has returned and its output has
	// been flushed: the peer's end-of-file says it has.
	if err := waitEOF(peer); err != nil {
		return err
	}
	if sameSocket(fd, rp.ino) == nil {
		return errors.New("gnet did not close the socket's fd when the connection closed")
	}
	return nil
}

// waitEOF waits up to a second for the end of the stream on peer
// (nothing else may come first).
func waitEOF(peer int) error {
	var b [1]byte
	n, err := readPeer(peer, b[:], time.Now().Add(time.Second))
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded):
		return errors.New("gnet did not close the socket's fd within a second of closing the connection")
	case err != nil:
		return err
	case n > 0:
		return errors.New("the probe's peer read more than gnet was told to write")
	}
	return nil
}

// gnetConnType is *gnet.conn, from the first probe's enrolled connection.
var gnetConnType atomic.Pointer[reflect.Type]

const probeRaw = "gwist-probe:raw|"

// rawProbe is the raw-registered probe connection, and its context.
type rawProbe struct {
	fd            int
	ino           uint64
	local, remote net.Addr
	opened        uint64 // OnOpen calls on the probe's loop
	done          chan struct{}
	mu            sync.Mutex
	why           string
}

func (rp *rawProbe) fail(why string) {
	rp.mu.Lock()
	if rp.why == "" {
		rp.why = why
	}
	rp.mu.Unlock()
}

func (rp *rawProbe) failure() string {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.why
}

// onOpen checks the connection gnet opened on the raw-registered fd.
func (rp *rawProbe) onOpen(gc gnet.Conn) ([]byte, gnet.Action) {
	rp.opened++
	switch {
	case reflect.TypeOf(gc) != *gnetConnType.Load():
		rp.fail(fmt.Sprintf("gnet opened a %T, not a %v", gc, *gnetConnType.Load()))
	case gc.Fd() != rp.fd:
		rp.fail(fmt.Sprintf("gnet opened fd %d, was given %d", gc.Fd(), rp.fd))
	case gc.LocalAddr() != rp.local || gc.RemoteAddr() != rp.remote:
		rp.fail(fmt.Sprintf("gnet's connection has addresses %v and %v, was given %v and %v", gc.LocalAddr(), gc.RemoteAddr(), rp.local, rp.remote))
	default:
		if err := sameSocket(gc.Fd(), rp.ino); err != nil {
			rp.fail(err.Error())
		} else if n, err := gc.Write([]byte(probeRaw)); n != len(probeRaw) || err != nil {
			rp.fail(fmt.Sprintf("gnet.Conn.Write: %d, %v", n, err))
		}
	}
	return nil, gnet.Close
}

// onClose ends the probe: gnet closes the fd after it returns.
func (rp *rawProbe) onClose(gnet.Conn) { close(rp.done) }
