//go:build unix

package engine

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// ConnLimit caps the connections open at once across the servers that
// share it (an App's plaintext and TLS listeners share one). A connection
// accepted beyond it is closed at once with a reset.
type ConnLimit struct {
	max  int64
	open atomic.Int64
}

// NewConnLimit returns a limit of max connections; max <= 0 means
// DefaultMaxConns().
func NewConnLimit(max int) *ConnLimit {
	if max <= 0 {
		max = DefaultMaxConns()
	}
	return &ConnLimit{max: int64(max)}
}

// Max is the limit.
func (l *ConnLimit) Max() int { return int(l.max) }

// Open is the number of connections counted against the limit.
func (l *ConnLimit) Open() int { return int(l.open.Load()) }

func (l *ConnLimit) hasRoom() bool { return l.open.Load() < l.max }

// DefaultMaxConns derives the default limit from the process's descriptor
// limit (RLIMIT_NOFILE, whose soft value Go raises to the hard one at
// start-up): the limit less an eighth of it, and at least 64 descriptors, for
// listeners, files, outbound connections and the engine's own. That keeps the
// process below the point where accept fails with EMFILE in the first place.
func DefaultMaxConns() int {
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &rl); err != nil || rl.Cur <= 0 {
		return 1 << 20
	}
	return maxConnsFor(uint64(rl.Cur)) // Cur is int64 on the BSDs
}

func maxConnsFor(nofile uint64) int {
	nofile = min(nofile, 1<<30) // RLIM_INFINITY and other huge values
	headroom := max(nofile/8, 64)
	if nofile <= headroom {
		return 1
	}
	return int(nofile - headroom)
}
