// Package parse reads the reports of the load generators the benchmark
// runner drives: wrk, ab, h2load, and the project's own tlsbench, ratebench
// and idleconns (whose JSON result types live here too, so that producer and
// consumer share one definition).
package parse

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// duration parses a tool's duration such as "530.52us", "1.20ms", "3.1s",
// "2.00m" or "1.5h" (wrk and h2load print these forms).
func duration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	units := []struct {
		suffix string
		unit   time.Duration
	}{{"us", time.Microsecond}, {"µs", time.Microsecond}, {"ms", time.Millisecond},
		{"ns", time.Nanosecond}, {"s", time.Second}, {"m", time.Minute}, {"h", time.Hour}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(num, 64)
			if err != nil {
				return 0, fmt.Errorf("parse: duration %q: %w", s, err)
			}
			return time.Duration(f * float64(u.unit)), nil
		}
	}
	return 0, fmt.Errorf("parse: duration %q: unknown unit", s)
}

// lines calls fn with every line of out, trimmed of surrounding space.
func lines(out string, fn func(line string)) {
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		fn(strings.TrimSpace(sc.Text()))
	}
}

// firstField parses the first whitespace-separated field of s as a float.
func firstField(s string) (float64, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return 0, fmt.Errorf("parse: empty value")
	}
	return strconv.ParseFloat(f[0], 64)
}

// summary returns the first non-empty line of out, for error messages that
// should say why a tool printed no result.
func summary(out string) string {
	var first string
	lines(out, func(l string) {
		if first == "" && l != "" {
			first = l
		}
	})
	if len(first) > 200 {
		first = first[:200]
	}
	return first
}
