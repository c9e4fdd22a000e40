//go:build linux

package hostile

import (
	"net"
	"syscall"
	"unsafe"
)

// tcpEstablished is TCP_ESTABLISHED of the kernel's tcp_states.h.
const tcpEstablished = 1

// peerGone reports whether the server has closed or reset c, from the
// kernel's TCP state (TCP_INFO), without reading from c: a client that
// never reads can still see a FIN (CLOSE_WAIT) or a reset (CLOSE). known
// is false where the state cannot be read.
func peerGone(c net.Conn) (gone, known bool) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return false, false
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return false, false
	}
	var info syscall.TCPInfo
	var errno syscall.Errno
	err = rc.Control(func(fd uintptr) {
		n := uint32(unsafe.Sizeof(info))
		_, _, errno = syscall.Syscall6(syscall.SYS_GETSOCKOPT, fd, syscall.IPPROTO_TCP, syscall.TCP_INFO,
			uintptr(unsafe.Pointer(&info)), uintptr(unsafe.Pointer(&n)), 0)
	})
	if err != nil || errno != 0 {
		return false, false
	}
	return info.State != tcpEstablished, true
}
