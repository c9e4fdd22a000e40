//go:build unix

package engine

import "golang.org/x/sys/unix"

// closeIfIdleForDrain closes c during a drain when it has nothing in flight
// and no request bytes are waiting in its socket. Bytes that reached the
// socket but not yet the loop are a request that the client sent before it
// could see the close: the loop reads it on its next turn and answers it
// with Connection: close. Only a request that arrives in the instant between
// this look and the close is lost (the client sees a reset or EOF before any
// response, which HTTP clients treat as a retryable closed idle connection).
func (c *conn) closeIfIdleForDrain() {
	if c.closed || !c.isIdle() || socketHasInput(c.fd) {
		return
	}
	c.closeNow()
}

// socketHasInput reports whether fd has bytes to read (or a pending error or
// EOF, which reading will find).
func socketHasInput(fd int) bool {
	var b [1]byte
	n, _, err := unix.Recvfrom(fd, b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
	return n > 0 || (err != nil && err != unix.EAGAIN && err != unix.EINTR)
}
