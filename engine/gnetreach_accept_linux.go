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
	"syscall"
	"unsafe"

	"github.com/panjf2000/gnet/v2"
	"github.com/panjf2000/gnet/v2/pkg/netpoll"
	"github.com/panjf2000/gnet/v2/pkg/queue"
	"golang.org/x/sys/unix"
)

// Raw accept: the accept goroutine takes connections with accept4(2) on a
// descriptor of its own for the listening socket, and registers each on a
// gnet loop as gnet's Client.EnrollContext does, minus what EnrollContext
// costs only because it starts from a *net.TCPConn: Go's netpoll
// registration and de-registration of the socket, its getsockname, the
// dup and the close of the original, the parse of the remote address back
// from its string, and the wait for the loop to run OnOpen (issue 26:
// about 4 % of the server's CPU per new TLS connection). With shared loops
// (loopgroup.go) the loops are the group's, and each server's raw accept
// takes them in turn. It relies on what gnet v2.9.7
// does (client_unix.go, connection_unix.go, eventloop_unix.go,
// load_balancer.go):
//
//   - EnrollContext builds the connection with newStreamConn(proto, fd, el,
//     sockaddr, local, remote), sets its ctx, and runs (*eventloop).register
//     on the loop through the loop's Poller.Trigger; register0 adds the fd
//     to the loop's epoll set and runs OnOpen. Both functions are reached
//     with go:linkname, so this reach is on only with the exact gnet
//     version whose source was read (a changed signature would not fail
//     cleanly, it would corrupt memory).
//   - The loops are Client.eng.eventLoops, a *roundRobinLoadBalancer whose
//     embedded baseLoadBalancer.eventLoops is a []*eventloop; its poller
//     is found as the read pause finds it (epollPath).
//   - gnet's conn.release hands the Zone strings of its addresses to a
//     pool of its own, so a connection whose address has a zone (an IPv6
//     link-local client) goes through EnrollContext instead.
//
// The self-test (probeRawAccept, in the gnet probe) registers one end of
// a socket pair this way on the probe client's loop, and checks that gnet
// opens it as a connection of the type EnrollContext made, with the fd,
// addresses and context given, that output written through gnet reaches
// the peer, and that gnet closes the fd when the connection closes. When
// it fails, or the layout is not found, rawAcceptReach is off and every
// connection goes through EnrollContext. The accept goroutine keeps its
// defences either way (listener.go: spare descriptor, refusal with a
// reset, the connection limit).

//go:linkname gnetNewStreamConn github.com/panjf2000/gnet/v2.newStreamConn
func gnetNewStreamConn(proto string, fd int, el unsafe.Pointer, sa unix.Sockaddr, localAddr, remoteAddr net.Addr) unsafe.Pointer

//go:linkname gnetRegister0 github.com/panjf2000/gnet/v2.(*eventloop).register0
func gnetRegister0(el unsafe.Pointer, c unsafe.Pointer) error

// loopsPath is where a gnet.Client keeps its loops, found by name once.
var loopsPath = findLoopsPath(reflect.TypeFor[gnet.Client]())

type loopsLayout struct {
	engIdx   int          // Client.eng
	lbIdx    int          // engine.eventLoops (an interface)
	lbType   reflect.Type // *roundRobinLoadBalancer
	loopsIdx []int        // its baseLoadBalancer.eventLoops
	err      string
}

// findLoopsPath finds Client.eng.eventLoops' concrete type and its loop
// slice, all checked by name, package and kind.
func findLoopsPath(client reflect.Type) loopsLayout {
	if epollPath.err != "" {
		return loopsLayout{err: epollPath.err}
	}
	eng, ok := client.FieldByName("eng")
	if !ok || len(eng.Index) != 1 || eng.Type.Kind() != reflect.Pointer ||
		eng.Type.Elem().Name() != "engine" || eng.Type.Elem().PkgPath() != gnetPkg {
		return loopsLayout{err: "gnet.Client has no eng *engine field"}
	}
	lb, ok := eng.Type.Elem().FieldByName("eventLoops")
	if !ok || len(lb.Index) != 1 || lb.Type.Kind() != reflect.Interface {
		return loopsLayout{err: "gnet engine has no eventLoops interface field"}
	}
	// The concrete type is not reachable from the interface's type; it is
	// found from the engine's load balancer at run time (gnetLoops), and
	// checked there against the one field path below.
	return loopsLayout{engIdx: eng.Index[0], lbIdx: lb.Index[0]}
}

// gnetLoops returns cli's loops, in gnet's order, as *eventloop pointers
// with their pollers.
func gnetLoops(cli *gnet.Client) ([]rawLoop, error) {
	if loopsPath.err != "" {
		return nil, errors.New(loopsPath.err)
	}
	eng := reflect.ValueOf(cli).Elem().Field(loopsPath.engIdx)
	if eng.IsNil() {
		return nil, errors.New("gnet.Client has no engine")
	}
	lb := eng.Elem().Field(loopsPath.lbIdx)
	if lb.IsNil() {
		return nil, errors.New("gnet engine has no load balancer")
	}
	lb = lb.Elem() // the concrete *…LoadBalancer
	if lb.Kind() != reflect.Pointer || lb.Elem().Kind() != reflect.Struct || lb.Elem().Type().PkgPath() != gnetPkg {
		return nil, fmt.Errorf("gnet's load balancer is a %v, not a pointer to a gnet struct", lb.Type())
	}
	loops := lb.Elem().FieldByName("eventLoops")
	if !loops.IsValid() || loops.Kind() != reflect.Slice || loops.Type().Elem() != epollPath.loopType {
		return nil, fmt.Errorf("gnet's load balancer %v has no eventLoops []*eventloop", lb.Type())
	}
	out := make([]rawLoop, loops.Len())
	for i := range out {
		el := loops.Index(i)
		if el.IsNil() {
			return nil, errors.New("gnet's load balancer holds a nil loop")
		}
		p := el.Elem().Field(epollPath.pollerIdx)
		if p.IsNil() {
			return nil, errors.New("a gnet loop has no poller")
		}
		out[i] = rawLoop{
			el:     el.UnsafePointer(),
			poller: (*netpoll.Poller)(p.UnsafePointer()),
			gel:    reflect.NewAt(epollPath.loopType.Elem(), el.UnsafePointer()).Interface().(gnet.EventLoop),
		}
	}
	return out, nil
}

// rawLoop is one gnet loop the raw accept registers connections on.
type rawLoop struct {
	el     unsafe.Pointer // *gnet.eventloop
	poller *netpoll.Poller
	gel    gnet.EventLoop // the same loop, as gnet.Conn.EventLoop() gives it
	// opened counts the OnOpen calls on the loop (loop only): the
	// engine's loopState.opened, the probe's own count.
	opened *uint64
}

// rawRegister makes a gnet connection of fd on l and registers it from
// l's loop. failed runs there if gnet could not register it: then gnet
// has closed the fd and OnOpen has not run. The error is Trigger's: the
// loop did not take the task (the caller still owns fd).
//
// pending, when not nil, counts the registration until it has run.
//
// gnet is given no unix.Sockaddr: it uses one only to send on datagram
// sockets, and a TCP connection's would be 32 B (IPv6: 48) held for its
// life.
func rawRegister(l *rawLoop, fd int, local, remote net.Addr, ctx any, failed func(error), pending *sync.WaitGroup) error {
	c := gnetNewStreamConn("tcp", fd, l.el, nil, local, remote)
	if ctx != nil {
		gnetConnAt(c).SetContext(ctx)
	}
	if pending != nil {
		pending.Add(1)
	}
	err := l.poller.Trigger(queue.HighPriority, func(any) error {
		if pending != nil {
			defer pending.Done()
		}
		if hook := rawRegisterHook.Load(); hook != nil {
			(*hook)()
		}
		opened := *l.opened
		// register0 fails before OnOpen when it cannot add the fd to
		// epoll (it closes the fd), and after OnOpen only when output
		// is queued in it, which OnOpen never does here: the count of
		// OnOpen calls tells the two apart.
		if err := gnetRegister0(l.el, c); err != nil && *l.opened == opened {
			failed(err)
		}
		return nil
	}, nil)
	if err != nil && pending != nil {
		pending.Done()
	}
	return err
}

// rawRegisterHook, when set (by tests), runs on the loop before each raw
// registration.
var rawRegisterHook atomic.Pointer[func()]

// gnetConnAt is the gnet.Conn whose *gnet.conn is c.
func gnetConnAt(c unsafe.Pointer) gnet.Conn {
	return reflect.NewAt((*gnetConnType.Load()).Elem(), c).Interface().(gnet.Conn)
}

// rawAcceptor is the raw accept of one Server.
type rawAcceptor struct {
	f     *os.File        // a non-blocking, close-on-exec dup of the listener
	rc    syscall.RawConn // f's, to wait for connections in Go's netpoll
	loops []rawLoop
	next  int
	// pending counts the registrations queued on loops and not yet run:
	// Shutdown waits for them once the accept goroutine has returned, so
	// that every connection accepted is opened, and drained, before the
	// loops stop.
	pending sync.WaitGroup
	// local is every connection's local address when the listener is
	// bound to one; nil for a wildcard listener (getsockname each).
	local *net.TCPAddr
}

// rawAcceptSupported reports whether servers started now accept raw.
// (gnetConnType is set by the self-test that keeps the reach on.)
func rawAcceptSupported() bool {
	return loopsPath.err == "" && rawAcceptReach.on() && gnetConnType.Load() != nil
}

// newRawAcceptor prepares s's raw accept; an error means s accepts
// through its net.TCPListener.
func newRawAcceptor(s *Server) (*rawAcceptor, error) {
	if !rawAcceptSupported() {
		if loopsPath.err != "" {
			return nil, errors.New(loopsPath.err)
		}
		return nil, errors.New(rawAcceptReach.reason())
	}
	loops, err := gnetLoops(s.cli)
	if err != nil {
		return nil, err
	}
	if len(loops) == 0 {
		return nil, errors.New("gnet's client has no loops")
	}
	for i := range loops {
		loops[i].opened = &s.loopFor(loops[i].gel).opened
	}
	src, err := s.ln.SyscallConn()
	if err != nil {
		return nil, err
	}
	lfd := -1
	var derr error
	if err := src.Control(func(fd uintptr) { lfd, derr = unix.FcntlInt(fd, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, fmt.Errorf("dup of the listener: %w", derr)
	}
	if err := unix.SetNonblock(lfd, true); err != nil {
		unix.Close(lfd)
		return nil, err
	}
	f := os.NewFile(uintptr(lfd), "gwist-listener") // non-blocking: in Go's netpoll
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	r := &rawAcceptor{f: f, rc: rc, loops: loops}
	if la, ok := s.ln.Addr().(*net.TCPAddr); ok && !la.IP.IsUnspecified() && la.Zone == "" {
		r.local = la
	}
	return r, nil
}

// close closes the raw accept's descriptor; with the listener's own
// closed, the socket stops listening. accept then returns net.ErrClosed.
func (r *rawAcceptor) close() { _ = r.f.Close() }

// wait waits for the registrations queued on loops to run. Once the accept
// goroutine has returned.
func (r *rawAcceptor) wait() { r.pending.Wait() }

// accept waits for a connection and takes it (accept4: non-blocking,
// close-on-exec). Its errors are accept4's but net.ErrClosed.
func (r *rawAcceptor) accept() (accepted, error) {
	var (
		a    accepted
		aerr error
	)
	err := r.rc.Read(func(lfd uintptr) bool {
		for {
			a.fd, a.remote, a.zoned, aerr = accept4(int(lfd), unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
			switch aerr {
			case unix.EINTR, unix.ECONNABORTED:
				continue // as Go's accept: the next one
			case unix.EAGAIN:
				return false // wait in Go's netpoll
			}
			return true
		}
	})
	if err != nil {
		return accepted{}, net.ErrClosed // only when f is closed
	}
	if aerr != nil {
		return accepted{}, os.NewSyscallError("accept4", aerr)
	}
	// As Go's accept does; Config has no way to turn it off.
	_ = unix.SetsockoptInt(a.fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	return a, nil
}

// enrollRaw hands a to the next loop. A connection whose addresses carry
// a zone goes through gnet's EnrollContext (see above). failed runs on
// the loop if gnet could not register it after this returned nil.
func (s *Server) enrollRaw(a accepted, ctx any, failed func(error)) error {
	r := s.raw
	local, zoned := r.local, a.zoned
	if local == nil {
		var lzoned bool
		var err error
		local, lzoned, err = getsockname(a.fd)
		if err != nil {
			unix.Close(a.fd)
			return fmt.Errorf("getsockname: %w", err)
		}
		zoned = zoned || lzoned
	}
	if zoned {
		return s.enrollFile(a.fd, ctx)
	}
	l := &r.loops[r.next%len(r.loops)]
	r.next++
	err := rawRegister(l, a.fd, local, a.remote, ctx, failed, &r.pending)
	if err != nil {
		// The loop's poller is closed: Shutdown stops the loops only once
		// the accept goroutine has returned, so this is not expected.
		unix.Close(a.fd)
	}
	return err
}

// enrollFile hands fd to gnet through EnrollContext.
func (s *Server) enrollFile(fd int, ctx any) error {
	f := os.NewFile(uintptr(fd), "gwist-conn")
	nc, err := net.FileConn(f) // a dup
	f.Close()
	if err != nil {
		return err
	}
	_, err = s.cli.EnrollContext(nc, ctx) // closes nc
	return err
}

// accept4 is unix.Accept4 without the getsockopt(SO_PROTOCOL) x/sys makes
// on the listener for every IPv4 or IPv6 peer (to tell an L2TP-over-IP
// socket from others; a TCP listener never is one): a system call less per
// connection. It returns the peer's address as gnet keeps it; zoned
// reports an IPv6 zone (which gnet's connection release pools, see above).
// Errors are the bare errno.
func accept4(lfd, flags int) (fd int, addr *net.TCPAddr, zoned bool, err error) {
	fd, addr, zoned, err = inetAddrCall(unix.SYS_ACCEPT4, lfd, flags)
	if err == unix.EAFNOSUPPORT {
		unix.Close(fd)
		return -1, nil, false, err
	}
	return fd, addr, zoned, err
}

// getsockname is unix.Getsockname for a TCP socket, without x/sys's
// getsockopt(SO_PROTOCOL) (see accept4), and its result as accept4's.
func getsockname(fd int) (addr *net.TCPAddr, zoned bool, err error) {
	_, addr, zoned, err = inetAddrCall(unix.SYS_GETSOCKNAME, fd, 0)
	return addr, zoned, err
}

// inetAddrCall makes trap (accept4 or getsockname: fd, an address buffer
// and its length, then flags) and converts the address the kernel wrote.
// With an address of another family than IPv4 or IPv6 it returns
// EAFNOSUPPORT and the call's result (accept4's descriptor, still open).
func inetAddrCall(trap uintptr, fd, flags int) (int, *net.TCPAddr, bool, error) {
	var rsa unix.RawSockaddrAny
	n := uint32(unix.SizeofSockaddrAny)
	r, _, errno := unix.Syscall6(trap, uintptr(fd), uintptr(unsafe.Pointer(&rsa)),
		uintptr(unsafe.Pointer(&n)), uintptr(flags), 0, 0)
	if errno != 0 {
		return -1, nil, false, errno
	}
	if addr, zoned := tcpAddr(&rsa); addr != nil {
		return int(r), addr, zoned, nil
	}
	return int(r), nil, false, unix.EAFNOSUPPORT
}

// tcpAddr converts an IPv4 or IPv6 address from the kernel (its port in
// network byte order); nil for another family. zoned reports an IPv6
// zone, which the address does not carry.
func tcpAddr(rsa *unix.RawSockaddrAny) (addr *net.TCPAddr, zoned bool) {
	switch rsa.Addr.Family {
	case unix.AF_INET:
		p := (*unix.RawSockaddrInet4)(unsafe.Pointer(rsa))
		return &net.TCPAddr{IP: net.IP(p.Addr[:]).To16(), Port: netPort(&p.Port)}, false
	case unix.AF_INET6:
		p := (*unix.RawSockaddrInet6)(unsafe.Pointer(rsa))
		ip := make(net.IP, net.IPv6len)
		copy(ip, p.Addr[:])
		return &net.TCPAddr{IP: ip, Port: netPort(&p.Port)}, p.Scope_id != 0
	}
	return nil, false
}

// netPort reads a port in network byte order.
func netPort(p *uint16) int {
	b := (*[2]byte)(unsafe.Pointer(p))
	return int(b[0])<<8 | int(b[1])
}

// refuseRaw closes fd with a reset (as refuse does a *net.TCPConn).
func refuseRaw(fd int) {
	_ = unix.SetsockoptLinger(fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0})
	_ = unix.Close(fd)
}
