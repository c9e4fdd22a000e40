//go:build linux

package sockopt

import (
	"time"

	"golang.org/x/sys/unix"
)

// QuickAck enables TCP_QUICKACK on fd, making the kernel acknowledge
// received data immediately instead of delaying the ACK. The setting is not
// sticky: Linux may leave quick-ACK mode on its own, so callers re-arm it.
func QuickAck(fd int) error {
	return unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1)
}

// NoDelay sets TCP_NODELAY on fd: on disables Nagle's algorithm.
func NoDelay(fd int, on bool) error {
	return unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, boolInt(on))
}

// DeferAccept sets TCP_DEFER_ACCEPT on a listening socket fd: accept only
// wakes once data has arrived, or after roughly seconds have passed.
// Zero turns it off. The kernel rounds the value to its retransmission
// schedule, so GetDeferAccept may read back a larger number.
func DeferAccept(fd int, seconds int) error {
	return unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT, seconds)
}

// KeepAlive enables SO_KEEPALIVE on fd and sets TCP_KEEPIDLE to idle,
// TCP_KEEPINTVL to interval and TCP_KEEPCNT to count. Durations are
// truncated to whole seconds, with a minimum of one second. A count below 1
// is treated as 1.
func KeepAlive(fd int, idle, interval time.Duration, count int) error {
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1); err != nil {
		return err
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, seconds(idle)); err != nil {
		return err
	}
	if err := unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, seconds(interval)); err != nil {
		return err
	}
	if count < 1 {
		count = 1
	}
	return unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPCNT, count)
}

// GetNoDelay reports whether TCP_NODELAY is set on fd.
func GetNoDelay(fd int) (bool, error) {
	v, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY)
	return v != 0, err
}

// GetQuickAck reports whether fd is currently in quick-ACK mode. Because
// the kernel leaves that mode by itself, the answer may change without any
// call to QuickAck.
func GetQuickAck(fd int) (bool, error) {
	v, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_QUICKACK)
	return v != 0, err
}

// GetDeferAccept returns the TCP_DEFER_ACCEPT value of fd in seconds, as
// rounded by the kernel.
func GetDeferAccept(fd int) (int, error) {
	return unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_DEFER_ACCEPT)
}

// GetKeepAlive returns whether SO_KEEPALIVE is on for fd and its
// TCP_KEEPIDLE, TCP_KEEPINTVL and TCP_KEEPCNT values.
func GetKeepAlive(fd int) (on bool, idle, interval time.Duration, count int, err error) {
	v, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_KEEPALIVE)
	if err != nil {
		return false, 0, 0, 0, err
	}
	is, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPIDLE)
	if err != nil {
		return false, 0, 0, 0, err
	}
	iv, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPINTVL)
	if err != nil {
		return false, 0, 0, 0, err
	}
	cnt, err := unix.GetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_KEEPCNT)
	if err != nil {
		return false, 0, 0, 0, err
	}
	return v != 0, time.Duration(is) * time.Second, time.Duration(iv) * time.Second, cnt, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// seconds converts d to whole seconds for the keepalive options, which
// reject zero.
func seconds(d time.Duration) int {
	s := int(d / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}
