package stats

import (
	"math"
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	var s []time.Duration
	for i := 1000; i >= 1; i-- { // 1..1000 ms, reversed to check sorting
		s = append(s, time.Duration(i)*time.Millisecond)
	}
	p := Summarize(s)
	want := Percentiles{Count: 1000, Mean: 500.5, P50: 500, P90: 900, P99: 990, P999: 999, Max: 1000}
	if p != want {
		t.Fatalf("got %+v, want %+v", p, want)
	}
	if (Summarize(nil) != Percentiles{}) {
		t.Fatal("empty input must give zero Percentiles")
	}
}

func TestRankSmall(t *testing.T) {
	s := []time.Duration{1, 2, 3}
	for q, want := range map[float64]time.Duration{0.01: 1, 0.34: 2, 0.5: 2, 0.67: 3, 1: 3} {
		if got := Rank(s, q); got != want {
			t.Errorf("Rank(%v) = %v, want %v", q, got, want)
		}
	}
}

func TestMedian(t *testing.T) {
	xs := []float64{3, 1, 2}
	if got := Median(xs); got != 2 {
		t.Errorf("Median odd = %v", got)
	}
	if xs[0] != 3 {
		t.Error("Median modified its input")
	}
	if got := Median([]float64{4, 1, 3, 2}); got != 2.5 {
		t.Errorf("Median even = %v", got)
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("Median(nil) must be NaN")
	}
}
