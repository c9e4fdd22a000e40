package tlsstate

import (
	"sync/atomic"
	"time"
)

// HistogramBounds are the upper bounds of the buckets that the Stats
// histograms count durations in: 100 µs to 10 s.
var HistogramBounds = [...]time.Duration{
	100 * time.Microsecond, 250 * time.Microsecond, 500 * time.Microsecond,
	time.Millisecond, 2500 * time.Microsecond, 5 * time.Millisecond,
	10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second,
}

// Histogram is a snapshot of durations counted in the HistogramBounds
// buckets.
type Histogram struct {
	// Counts[i] counts the durations in (HistogramBounds[i-1],
	// HistogramBounds[i]] (not cumulative); the last element, those above
	// the last bound.
	Counts [len(HistogramBounds) + 1]uint64
	// Count is the number of durations, Sum their total.
	Count uint64
	Sum   time.Duration
}

// Add adds o into h.
func (h *Histogram) Add(o Histogram) {
	for i, n := range o.Counts {
		h.Counts[i] += n
	}
	h.Count += o.Count
	h.Sum += o.Sum
}

// histogram is the live form of Histogram: one atomic per bucket, so that
// observing takes no lock. Handshakes are rare next to requests (each
// costs far more than the two atomic adds), so one per Server is enough.
type histogram struct {
	counts [len(HistogramBounds) + 1]atomic.Uint64
	sum    atomic.Int64
}

func (h *histogram) observe(d time.Duration) {
	i := 0
	for i < len(HistogramBounds) && d > HistogramBounds[i] {
		i++
	}
	h.counts[i].Add(1)
	h.sum.Add(int64(d))
}

// snapshot reads h. Count is the sum of the buckets read, so a snapshot is
// consistent with itself even while observations go on (Sum may be a
// little ahead or behind).
func (h *histogram) snapshot() Histogram {
	var s Histogram
	for i := range h.counts {
		s.Counts[i] = h.counts[i].Load()
		s.Count += s.Counts[i]
	}
	s.Sum = time.Duration(h.sum.Load())
	return s
}
