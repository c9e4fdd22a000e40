//go:build unix

package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// The gnet self-tests run on a probe: one end of a socket pair, enrolled
// in a one-loop gnet client made for the purpose, which gnet opens and
// closes again at once, while the test looks on from gnet's callbacks and
// from the pair's other end. The probe is gnet's code path for a real
// connection (enroll, register, OnOpen, close, OnClose) and touches no
// server's state: it cannot harm. It takes well under a millisecond.

// probeResult says why each gnet reach must be off; "" when it may stay on.
type probeResult struct {
	readPause string
	fdWrites  string
	rawAccept string
}

// probeHooks let tests break the probe the way a changed gnet would. The
// zero value probes as production does.
type probeHooks struct {
	// fd replaces gnet.Conn.Fd as the probe's idea of the connection's fd.
	fd func(gc gnet.Conn) int
	// epfd replaces loopEpollFD.
	epfd func(el gnet.EventLoop) int
	// beforeClose runs in OnClose before the fd is looked at: a test may
	// put another file at that number, as a gnet that closed the fd
	// before OnClose would let happen.
	beforeClose func(fd int)
	// rawLoops replaces the loops the raw accept's self-test found.
	rawLoops func([]rawLoop) []rawLoop
}

// probeSent is what OnOpen writes: the first part behind gnet's back,
// the second through gnet.Conn.Write, so the peer must read them in order.
const (
	probeDirect = "gwist-probe:direct|"
	probeGnetW  = "gnet|"
)

// gnetProbe is the probe client's event handler.
type gnetProbe struct {
	gnet.BuiltinEventEngine
	h        probeHooks
	ino      uint64 // the enrolled socket's inode
	res      probeResult
	opened   bool
	closed   bool
	enrolled gnet.Conn // the enrolled probe, once opened
}

// probeGnet runs the gnet self-tests and reports which reaches must be
// off. l receives gnet's own log lines, as a server's would.
func probeGnet(l *slog.Logger, h probeHooks) probeResult {
	if h.fd == nil {
		h.fd = func(gc gnet.Conn) int { return gc.Fd() }
	}
	if h.epfd == nil {
		h.epfd = loopEpollFD
	}
	fail := func(err error) probeResult {
		why := "the probe could not run: " + err.Error()
		return probeResult{readPause: why, fdWrites: why, rawAccept: why}
	}
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return fail(err)
	}
	peer := fds[0]
	defer unix.Close(peer)
	if err := unix.SetNonblock(peer, true); err != nil {
		unix.Close(fds[1])
		return fail(err)
	}
	p := &gnetProbe{h: h}
	var st unix.Stat_t
	if err := unix.Fstat(fds[1], &st); err != nil {
		unix.Close(fds[1])
		return fail(err)
	}
	p.ino = uint64(st.Ino)
	f := os.NewFile(uintptr(fds[1]), "gwist-gnet-probe")
	nc, err := net.FileConn(f) // a dup; gnet dups it again and closes nc
	f.Close()
	if err != nil {
		return fail(err)
	}
	cli, err := gnet.NewClient(p, gnet.WithNumEventLoop(1), gnet.WithLogger(gnetLogger{l}))
	if err == nil {
		err = cli.Start()
	}
	if err != nil {
		nc.Close()
		return fail(fmt.Errorf("starting a gnet client: %w", err))
	}
	defer func() { _ = cli.Stop() }()
	// EnrollContext returns once gnet has run OnOpen on its loop; the
	// Close OnOpen asks for runs OnClose before that.
	if _, err := cli.EnrollContext(nc, nil); err != nil {
		return fail(fmt.Errorf("enrolling a socket in gnet: %w", err))
	}
	if !p.opened || !p.closed {
		why := fmt.Sprintf("gnet did not open and close the probe within EnrollContext (OnOpen %v, OnClose %v)", p.opened, p.closed)
		p.res.note(&p.res.fdWrites, why)
		p.res.note(&p.res.readPause, why)
	}
	if err := readProbe(peer, probeDirect+probeGnetW); err != nil {
		p.res.note(&p.res.fdWrites, err.Error())
	}
	if err := probeRawAccept(cli, p.enrolled, h); err != nil {
		p.res.note(&p.res.rawAccept, err.Error())
	}
	return p.res
}

// note keeps the first reason a reach fails.
func (r *probeResult) note(field *string, why string) {
	if *field == "" {
		*field = why
	}
}

// OnOpen runs on the probe's loop with the socket registered.
func (p *gnetProbe) OnOpen(gc gnet.Conn) ([]byte, gnet.Action) {
	if rp, ok := gc.Context().(*rawProbe); ok {
		return rp.onOpen(gc)
	}
	p.opened, p.enrolled = true, gc
	fd := p.h.fd(gc)
	if err := probeFDOnOpen(gc, fd, p.ino); err != nil {
		p.res.note(&p.res.fdWrites, err.Error())
	}
	if err := probeEpoll(p.h.epfd(gc.EventLoop()), fd); err != nil {
		p.res.note(&p.res.readPause, err.Error())
	}
	return nil, gnet.Close
}

// OnClose runs on the probe's loop; gnet closes the fd after it returns.
func (p *gnetProbe) OnClose(gc gnet.Conn, _ error) gnet.Action {
	if rp, ok := gc.Context().(*rawProbe); ok {
		rp.onClose(gc)
		return gnet.None
	}
	p.closed = true
	fd := p.h.fd(gc)
	if p.h.beforeClose != nil {
		p.h.beforeClose(fd)
	}
	if err := sameSocket(fd, p.ino); err != nil {
		p.res.note(&p.res.fdWrites, "in OnClose: "+err.Error()+": gnet may close the fd before OnClose, and a worker write race its reuse")
	}
	return gnet.None
}

// sameSocket checks that fd is the socket with inode ino.
func sameSocket(fd int, ino uint64) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("fstat of the connection's fd: %w", err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFSOCK || uint64(st.Ino) != ino {
		return errors.New("the connection's fd is not the socket gnet was given")
	}
	return nil
}
