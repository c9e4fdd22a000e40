//go:build linux

package engine

import "golang.org/x/sys/unix"

// sendQueued is how many bytes the kernel holds for fd that the peer has
// not acknowledged (SIOCOUTQ), or -1. Its fall is progress that gnet's own
// buffer does not show: gnet flushes only once the socket's send buffer
// has half emptied, which takes seconds for a slow reader of a large one.
// Loop only, on an open connection's Fd (see gnetreach_fd.go).
func sendQueued(fd int) int {
	n, err := unix.IoctlGetInt(fd, unix.SIOCOUTQ)
	if err != nil {
		return -1
	}
	return n
}
