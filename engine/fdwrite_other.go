//go:build unix && !linux

package engine

import "golang.org/x/sys/unix"

// sysWrite writes p to the non-blocking fd (fdwrite_linux.go says why Linux
// does it otherwise).
func sysWrite(fd int, p []byte) (int, error) {
	return unix.Write(fd, p)
}
