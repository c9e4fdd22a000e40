//go:build unix

package testkit

import "syscall"

func setBuffers(fd uintptr, rcvbuf, sndbuf int) error {
	if rcvbuf > 0 {
		if err := syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, rcvbuf); err != nil {
			return err
		}
	}
	if sndbuf > 0 {
		return syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_SNDBUF, sndbuf)
	}
	return nil
}
