package engine

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// reservation holds a bound (not listening) SO_REUSEPORT socket on a
// concrete port. gnet binds one listener per loop with SO_REUSEPORT, so with
// port 0 each loop would get a different port; binding first pins the port
// for all of them. A socket that never listens takes no connections.
type reservation struct {
	fd   int
	addr *net.TCPAddr
}

func reservePort(addr string) (*reservation, error) {
	tcp, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		return nil, err
	}
	family, sa := unix.AF_INET, unix.Sockaddr(nil)
	if ip4 := tcp.IP.To4(); ip4 != nil || tcp.IP == nil {
		var a unix.SockaddrInet4
		if ip4 != nil {
			copy(a.Addr[:], ip4)
		}
		a.Port = tcp.Port
		sa = &a
	} else {
		family = unix.AF_INET6
		var a unix.SockaddrInet6
		copy(a.Addr[:], tcp.IP.To16())
		a.Port = tcp.Port
		sa = &a
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("engine: socket: %w", err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err == nil {
		err = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
	}
	if err == nil {
		err = unix.Bind(fd, sa)
	}
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("engine: bind %s: %w", addr, err)
	}
	bound, err := unix.Getsockname(fd)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	out := &net.TCPAddr{IP: tcp.IP, Zone: tcp.Zone}
	switch b := bound.(type) {
	case *unix.SockaddrInet4:
		out.Port = b.Port
		if out.IP == nil {
			out.IP = net.IPv4zero
		}
	case *unix.SockaddrInet6:
		out.Port = b.Port
	}
	return &reservation{fd: fd, addr: out}, nil
}

func (r *reservation) release() { unix.Close(r.fd) }
