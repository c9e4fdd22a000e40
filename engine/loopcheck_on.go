//go:build unix && gwistcheck

package engine

import (
	"strconv"
	"sync/atomic"
)

// Loop-only code asserts that it runs on its connection's loop when built
// with the gwistcheck tag (make test does): the loop's goroutine is
// recorded at its first callback, and a loop-only method on any other
// goroutine panics, naming it. x/net's serveG.check is the model. Without
// the tag the check is an empty function the compiler removes.

// gwistcheck: test builds also check that a pooled batch is free when
// taken and not released twice (batch.go).
const gwistcheck = true

// loopGoroutine is the goroutine a loop runs on, 0 until known.
type loopGoroutine struct {
	id    atomic.Uint64
	calls atomic.Uint64
}

// checkAll and checkEvery: a loop's first checkAll checks are all made,
// then one in checkEvery. Reading the goroutine's id costs a stack header
// (microseconds under -race); checking every call made the loop of a
// test build several times slower where it works per frame (a ping flood
// was dropped after 8–15 s instead of 4), which timing-bound tests felt. A
// path that runs off its loop does so on every call, so a sample catches it.
const (
	checkAll   = 1024
	checkEvery = 16
)

// check panics unless called on the loop's goroutine (the first caller's).
func (g *loopGoroutine) check(what string) {
	if n := g.calls.Add(1); n > checkAll && n%checkEvery != 0 {
		return
	}
	id := curGoroutineID()
	if g.id.CompareAndSwap(0, id) {
		return
	}
	if got := g.id.Load(); got != id {
		panic("gwist: " + what + " ran on goroutine " + strconv.FormatUint(id, 10) +
			", not on its loop's (" + strconv.FormatUint(got, 10) + ")")
	}
}
