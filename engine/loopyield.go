package engine

import (
	"runtime"
	"time"
)

// A loop under steady load never finds epoll_wait empty, so it never
// yields (gnet yields only then) and runs on one scheduling tick for as
// long as the load lasts. Go's sysmon preempts a goroutine after 10 ms on
// one tick; a loop caught in one of its reads or writes then has its P
// taken and handed off, and every hand-off keeps sysmon ticking every
// 20 µs for another millisecond. So the loop yields itself, between
// callbacks, once it has run loopYieldAfter since it last did.
const (
	// loopYieldCheck is how many callbacks pass between looks at the clock.
	loopYieldCheck = 16
	// loopYieldAfter is well under sysmon's 10 ms, with room for
	// loopYieldCheck slow callbacks.
	loopYieldAfter = 2 * time.Millisecond
)

// loopYield is a loop's record of its last yield. Loop only.
type loopYield struct {
	callbacks uint32
	last      time.Time
}

// note counts a callback and yields the loop's thread when it is time.
func (y *loopYield) note() {
	if y.callbacks++; y.callbacks%loopYieldCheck != 0 {
		return
	}
	if now := time.Now(); now.Sub(y.last) >= loopYieldAfter {
		y.last = now
		runtime.Gosched()
	}
}
