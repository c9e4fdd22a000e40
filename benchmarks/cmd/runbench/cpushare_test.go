package main

import (
	"testing"
	"time"
)

func TestParseProcStatBusy(t *testing.T) {
	stat := []byte("cpu  100 20 30 5000 40 5 5 10 0 0\ncpu0 50 10 15 2500 20 2 3 5 0 0\n")
	// user+nice+system+irq+softirq+steal = 100+20+30+5+5+10 = 170 ticks
	if got := parseProcStatBusy(stat); got != 1.7 {
		t.Fatalf("busy = %v, want 1.7s", got)
	}
	if parseProcStatBusy([]byte("intr 1 2 3\n")) != 0 {
		t.Fatal("no cpu line: want 0")
	}
}

func TestOthersShare(t *testing.T) {
	t0 := time.Unix(0, 0)
	a := cpuSnapshot{at: t0, machineBusy: 100, ours: 10}
	b := cpuSnapshot{at: t0.Add(10 * time.Second), machineBusy: 115, ours: 20}
	// 15 s busy, 10 s ours: others used 5 s of 2 cores × 10 s.
	if got := othersShare(a, b, 2); got != 0.25 {
		t.Fatalf("share = %v, want 0.25", got)
	}
	if othersShare(a, a, 2) != -1 {
		t.Fatal("zero wall time: want -1")
	}
}
