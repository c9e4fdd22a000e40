package parse

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Wrk is what a wrk run reports.
type Wrk struct {
	Requests       int64         // total responses read
	RequestsPerSec float64       // "Requests/sec:"
	LatencyAvg     time.Duration // "Latency" row, Avg column
	LatencyMax     time.Duration // "Latency" row, Max column
	// Latency distribution (only with --latency; zero otherwise).
	P50, P75, P90, P99 time.Duration
	// Socket errors by kind: connect, read, write, timeout.
	ConnectErrors, ReadErrors, WriteErrors, Timeouts int64
	Non2xx                                           int64 // "Non-2xx or 3xx responses:"
}

// Errors is the total of socket errors and non-2xx/3xx responses.
func (w Wrk) Errors() int64 {
	return w.ConnectErrors + w.ReadErrors + w.WriteErrors + w.Timeouts + w.Non2xx
}

// ParseWrk reads wrk's report. It fails when the report has no
// "Requests/sec:" line, quoting the first line wrk printed.
func ParseWrk(out string) (Wrk, error) {
	var w Wrk
	var seen bool
	var err error
	set := func(d *time.Duration, s string) {
		if v, e := duration(s); e == nil {
			*d = v
		} else if err == nil {
			err = e
		}
	}
	lines(out, func(l string) {
		f := strings.Fields(l)
		switch {
		case strings.HasPrefix(l, "Requests/sec:"):
			v, e := firstField(strings.TrimPrefix(l, "Requests/sec:"))
			if e != nil {
				err = fmt.Errorf("parse: wrk: %q: %w", l, e)
				return
			}
			w.RequestsPerSec, seen = v, true
		case strings.HasPrefix(l, "Latency ") && len(f) >= 4:
			set(&w.LatencyAvg, f[1])
			set(&w.LatencyMax, f[3])
		case len(f) == 2 && strings.HasSuffix(f[0], "%"):
			switch f[0] {
			case "50%":
				set(&w.P50, f[1])
			case "75%":
				set(&w.P75, f[1])
			case "90%":
				set(&w.P90, f[1])
			case "99%":
				set(&w.P99, f[1])
			}
		case len(f) >= 3 && f[1] == "requests" && f[2] == "in":
			w.Requests, _ = strconv.ParseInt(f[0], 10, 64)
		case strings.HasPrefix(l, "Socket errors:"):
			// Socket errors: connect 0, read 12, write 3, timeout 7
			for _, part := range strings.Split(strings.TrimPrefix(l, "Socket errors:"), ",") {
				kv := strings.Fields(part)
				if len(kv) != 2 {
					continue
				}
				n, _ := strconv.ParseInt(kv[1], 10, 64)
				switch kv[0] {
				case "connect":
					w.ConnectErrors = n
				case "read":
					w.ReadErrors = n
				case "write":
					w.WriteErrors = n
				case "timeout":
					w.Timeouts = n
				}
			}
		case strings.HasPrefix(l, "Non-2xx or 3xx responses:"):
			w.Non2xx, _ = strconv.ParseInt(strings.TrimSpace(strings.TrimPrefix(l, "Non-2xx or 3xx responses:")), 10, 64)
		}
	})
	if err != nil {
		return w, err
	}
	if !seen {
		return w, fmt.Errorf("parse: wrk printed no Requests/sec: %q", summary(out))
	}
	return w, nil
}
