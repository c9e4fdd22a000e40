// Package lograte lets through at most one log line a second, counting the
// lines it holds back, so that an event a client can cause at will (an
// accept error, a disconnect) cannot flood the log.
package lograte

import (
	"sync"
	"time"
)

// Interval is the least time between two lines a Limiter allows.
const Interval = time.Second

// Limiter allows one line per Interval. The zero value is ready; it is safe
// for concurrent use.
type Limiter struct {
	mu         sync.Mutex
	last       time.Time // when the last line was allowed
	suppressed uint64    // lines held back since then
}

// Allow reports whether a line may be logged now and, when it may, how
// many were held back since the last one that was.
func (l *Limiter) Allow() (ok bool, suppressed uint64) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.last.IsZero() && now.Sub(l.last) < Interval {
		l.suppressed++
		return false, 0
	}
	suppressed = l.suppressed
	l.last, l.suppressed = now, 0
	return true, suppressed
}
