package metrics

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// histogram counts values in fixed buckets with one atomic per bucket: an
// observation is a short scan of the bounds and two atomic adds.
type histogram struct {
	counts []atomic.Uint64 // len(bounds)+1; the last is above every bound
	sum    atomic.Int64    // in the unit of the bounds (ns, bytes)
}

func newHistogram(bounds []int64) histogram {
	return histogram{counts: make([]atomic.Uint64, len(bounds)+1)}
}

func (h *histogram) observe(bounds []int64, v int64) {
	i := 0
	for i < len(bounds) && v > bounds[i] {
		i++
	}
	h.counts[i].Add(1)
	h.sum.Add(v)
}

// total is the sum of histograms (of the shards), read at scrape time.
type total struct {
	counts []uint64
	sum    int64
}

func (t *total) add(h *histogram) {
	if t.counts == nil {
		t.counts = make([]uint64, len(h.counts))
	}
	for i := range h.counts {
		t.counts[i] += h.counts[i].Load()
	}
	t.sum += h.sum.Load()
}

func (t *total) count() (n uint64) {
	for _, c := range t.counts {
		n += c
	}
	return n
}

// metric builds the exposition of t: bounds and sum are scaled by unit
// (1e-9 for ns to seconds, 1 for bytes).
func (t *total) metric(d *prometheus.Desc, bounds []int64, unit float64, labels ...string) prometheus.Metric {
	return cumulative(d, bounds, unit, t.counts, float64(t.sum)*unit, labels...)
}

// cumulative builds a const histogram from per-bucket (not cumulative)
// counts, the last one above every bound.
func cumulative(d *prometheus.Desc, bounds []int64, unit float64, counts []uint64, sum float64, labels ...string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(bounds))
	var n uint64
	for i, b := range bounds {
		n += counts[i]
		buckets[float64(b)*unit] = n
	}
	n += counts[len(bounds)]
	return prometheus.MustNewConstHistogram(d, n, sum, buckets, labels...)
}
