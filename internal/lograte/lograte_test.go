package lograte

import (
	"testing"
	"time"
)

func TestLimiterAllowsOnePerIntervalAndCounts(t *testing.T) {
	var l Limiter
	if ok, n := l.Allow(); !ok || n != 0 {
		t.Fatalf("first line: %v %d", ok, n)
	}
	for range 5 {
		if ok, _ := l.Allow(); ok {
			t.Fatal("a second line within the interval was allowed")
		}
	}
	l.last = time.Now().Add(-2 * Interval) // the interval has passed
	if ok, n := l.Allow(); !ok || n != 5 {
		t.Fatalf("after the interval: %v, %d held back; want true, 5", ok, n)
	}
}
