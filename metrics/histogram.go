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

// count is the number of observations (the buckets' total).
func (h *histogram) count() uint64 {
	var n uint64
	for i := range h.counts {
		n += h.counts[i].Load()
	}
	return n
}

// constHistogram builds the exposition of h: bounds and sum are scaled by
// unit (1e-9 for ns to seconds, 1 for bytes).
func (h *histogram) constHistogram(d *prometheus.Desc, bounds []int64, unit float64, labels ...string) prometheus.Metric {
	counts := make([]uint64, len(h.counts))
	for i := range h.counts {
		counts[i] = h.counts[i].Load()
	}
	return cumulative(d, bounds, unit, counts, float64(h.sum.Load())*unit, labels...)
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
