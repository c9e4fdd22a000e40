//go:build !linux

package sockopt

import "time"

// QuickAck is a no-op outside Linux.
func QuickAck(fd int) error { return nil }

// NoDelay is a no-op outside Linux (Go already sets TCP_NODELAY on its own
// connections).
func NoDelay(fd int, on bool) error { return nil }

// DeferAccept is a no-op outside Linux.
func DeferAccept(fd int, seconds int) error { return nil }

// KeepAlive is a no-op outside Linux.
func KeepAlive(fd int, idle, interval time.Duration, count int) error { return nil }

// GetNoDelay returns false and a nil error outside Linux.
func GetNoDelay(fd int) (bool, error) { return false, nil }

// GetQuickAck returns false and a nil error outside Linux.
func GetQuickAck(fd int) (bool, error) { return false, nil }

// GetDeferAccept returns 0 and a nil error outside Linux.
func GetDeferAccept(fd int) (int, error) { return 0, nil }

// GetKeepAlive returns zero values and a nil error outside Linux.
func GetKeepAlive(fd int) (on bool, idle, interval time.Duration, count int, err error) {
	return false, 0, 0, 0, nil
}
