//go:build race

package tracing_test

// raceEnabled: sync.Pool drops items at random under the race detector,
// so allocation counts are not exact.
const raceEnabled = true
