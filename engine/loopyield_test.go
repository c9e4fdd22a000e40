package engine

import (
	"testing"
	"time"
)

// TestLoopYieldSpacing: the loop looks at the clock every loopYieldCheck
// callbacks and yields only when loopYieldAfter has passed since its last
// yield.
func TestLoopYieldSpacing(t *testing.T) {
	var y loopYield
	for range loopYieldCheck - 1 {
		y.note()
	}
	if !y.last.IsZero() {
		t.Fatalf("yielded after %d callbacks, before its first look at the clock", loopYieldCheck-1)
	}
	y.note()
	first := y.last
	if first.IsZero() {
		t.Fatal("no yield at the first look at the clock")
	}
	for range loopYieldCheck {
		y.note()
	}
	if time.Since(first) < loopYieldAfter && y.last != first {
		t.Fatalf("yielded again %v after the last yield, want %v apart", y.last.Sub(first), loopYieldAfter)
	}
	time.Sleep(loopYieldAfter + time.Millisecond)
	for range loopYieldCheck {
		y.note()
	}
	if !y.last.After(first) {
		t.Fatalf("no yield %v after the last one", loopYieldAfter+time.Millisecond)
	}
}
