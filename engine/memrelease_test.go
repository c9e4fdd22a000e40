//go:build unix

package engine

import (
	"testing"
	"time"
)

// The release policy: nothing under a steady or small load; once after a
// large peak halves; a follow-up only if the load kept falling; never two
// within releaseEvery.
func TestMemWatchReleasesAfterABurst(t *testing.T) {
	defer lastRelease.Store(lastRelease.Load())
	lastRelease.Store(0)
	var m memWatch
	now := time.Unix(1000, 0)
	step := func(held, conns int64, want bool) {
		t.Helper()
		got := m.observe(held, conns, now)
		if got != want {
			t.Fatalf("at %v, held %d, conns %d: release %v, want %v", now.Unix()-1000, held, conns, got, want)
		}
		if got {
			lastRelease.Store(now.UnixNano())
		}
		now = now.Add(250 * time.Millisecond)
	}
	step(10<<20, 100, false) // small
	step(20<<20, 400, false)
	step(5<<20, 50, false) // halved, but never large
	step(100<<20, 2000, false)
	step(90<<20, 1500, false) // large, not halved yet
	step(40<<20, 900, true)   // halved
	step(10<<20, 100, false)  // within releaseEvery
	now = now.Add(releaseEvery)
	step(5<<20, 20, true) // kept falling: the follow-up
	now = now.Add(releaseEvery)
	step(5<<20, 20, false) // no more
	step(6<<20, 25, false)
}
