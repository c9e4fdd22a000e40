//go:build unix

package engine

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// ConnLimit caps the connections open at once across the servers that
// share it (an App's plaintext and TLS listeners share one). A connection
// accepted beyond it is not served: on a plaintext listener it is answered
// "503 Service Unavailable" once its request line arrives (shed.go), on
// others it is closed at once with a reset.
type ConnLimit struct {
	max  int64
	open atomic.Int64
	// shed counts the connections beyond max waiting to be answered 503
	// (shed.go), at most shedReserve.
	shed atomic.Int64
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

// reserve takes a place under the limit for a connection about to be
// handed to a loop (whose OnOpen finds it taken), if there is one. The
// accept goroutines of the servers sharing l take places concurrently; the
// loops give them back as connections close.
func (l *ConnLimit) reserve() bool {
	for {
		n := l.open.Load()
		if n >= l.max {
			return false
		}
		if l.open.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// shedReserve is how many shed connections may wait for their request at
// once, beyond the limit: a 64th of it, at least 1 and at most
// maxShedReserve, well within the descriptors DefaultMaxConns leaves free
// (an eighth of them).
func (l *ConnLimit) shedReserve() int64 { return min(maxShedReserve, max(1, l.max/64)) }

// reserveShed takes a place among the connections shed with a 503, if
// answerable (a plaintext listener) and the reserve has room.
func (l *ConnLimit) reserveShed(answerable bool) bool {
	if !answerable {
		return false
	}
	if l.shed.Add(1) > l.shedReserve() {
		l.shed.Add(-1)
		return false
	}
	return true
}

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
