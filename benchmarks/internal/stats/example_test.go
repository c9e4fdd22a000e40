package stats_test

import (
	"fmt"
	"time"

	"github.com/gwist/gwist/benchmarks/internal/stats"
)

func ExampleSummarize() {
	samples := []time.Duration{4 * time.Millisecond, time.Millisecond, 2 * time.Millisecond, 3 * time.Millisecond}
	p := stats.Summarize(samples)
	fmt.Println(p.P50, p.P99, p.Max)
	// Output: 2 4 4
}

func ExampleMedian() {
	fmt.Println(stats.Median([]float64{120, 100, 110}))
	// Output: 110
}
