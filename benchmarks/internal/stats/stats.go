// Package stats turns latency samples into the percentiles the load
// generators report, and takes medians of repeated runs.
package stats

import (
	"math"
	"slices"
	"time"
)

// Percentiles summarises a latency distribution, in milliseconds.
type Percentiles struct {
	Count int     `json:"count"`
	Mean  float64 `json:"mean_ms"`
	P50   float64 `json:"p50_ms"`
	P90   float64 `json:"p90_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p999_ms"`
	Max   float64 `json:"max_ms"`
}

// Summarize returns the nearest-rank percentiles of samples. It sorts
// samples in place. An empty input gives the zero Percentiles.
func Summarize(samples []time.Duration) Percentiles {
	if len(samples) == 0 {
		return Percentiles{}
	}
	slices.Sort(samples)
	var sum time.Duration
	for _, s := range samples {
		sum += s
	}
	return Percentiles{
		Count: len(samples),
		Mean:  ms(sum / time.Duration(len(samples))),
		P50:   ms(Rank(samples, 0.50)),
		P90:   ms(Rank(samples, 0.90)),
		P99:   ms(Rank(samples, 0.99)),
		P999:  ms(Rank(samples, 0.999)),
		Max:   ms(samples[len(samples)-1]),
	}
}

// Rank returns the nearest-rank q-quantile (0 < q <= 1) of sorted, which
// must be sorted ascending and non-empty: the smallest sample such that at
// least q of all samples are less than or equal to it.
func Rank(sorted []time.Duration, q float64) time.Duration {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	i = max(0, min(i, len(sorted)-1))
	return sorted[i]
}

// Median returns the median of xs (the mean of the middle two for an even
// count), without modifying xs. It returns NaN for an empty input.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
