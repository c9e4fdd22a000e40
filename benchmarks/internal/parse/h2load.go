package parse

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// H2load is what an h2load run reports.
type H2load struct {
	Elapsed                                                   time.Duration // "finished in X,"
	RequestsPerSec                                            float64       // "finished in X, N req/s"
	Total, Started, Done, Succeeded, Failed, Errored, Timeout int64
	Status2xx                                                 int64 // "status codes: N 2xx"
	// Protocol is the "Application protocol:" h2load negotiated ("h2",
	// "h2c", "http/1.1"); empty when no connection got that far.
	Protocol string
	// FellBack is set when h2load said it fell back to HTTP/1.1.
	FellBack bool
}

// SpokeH2 reports whether the run used HTTP/2 (over TLS or cleartext) and
// got at least one successful response.
func (h H2load) SpokeH2() bool {
	return (h.Protocol == "h2" || h.Protocol == "h2c") && !h.FellBack && h.Succeeded > 0
}

// ParseH2load reads h2load's report. It fails when there is no
// "finished in" line.
func ParseH2load(out string) (H2load, error) {
	var h H2load
	var seen bool
	var perr error
	lines(out, func(l string) {
		switch {
		case strings.HasPrefix(l, "finished in "):
			// finished in 113.30ms, 17651.78 req/s, 606.99KB/s
			parts := strings.Split(strings.TrimPrefix(l, "finished in "), ",")
			if len(parts) < 2 {
				perr = fmt.Errorf("parse: h2load: %q", l)
				return
			}
			d, err := duration(parts[0])
			if err != nil {
				perr = err
				return
			}
			rps, err := firstField(parts[1])
			if err != nil {
				perr = fmt.Errorf("parse: h2load: %q: %w", l, err)
				return
			}
			h.Elapsed, h.RequestsPerSec, seen = d, rps, true
		case strings.HasPrefix(l, "requests:"):
			// requests: 2000 total, 2000 started, 2000 done, 2000 succeeded, 0 failed, 0 errored, 0 timeout
			for _, part := range strings.Split(strings.TrimPrefix(l, "requests:"), ",") {
				f := strings.Fields(part)
				if len(f) != 2 {
					continue
				}
				n, _ := strconv.ParseInt(f[0], 10, 64)
				switch f[1] {
				case "total":
					h.Total = n
				case "started":
					h.Started = n
				case "done":
					h.Done = n
				case "succeeded":
					h.Succeeded = n
				case "failed":
					h.Failed = n
				case "errored":
					h.Errored = n
				case "timeout":
					h.Timeout = n
				}
			}
		case strings.HasPrefix(l, "status codes:"):
			f := strings.Fields(strings.TrimPrefix(l, "status codes:"))
			if len(f) >= 2 && strings.HasPrefix(f[1], "2xx") {
				h.Status2xx, _ = strconv.ParseInt(f[0], 10, 64)
			}
		case strings.HasPrefix(l, "Application protocol:"):
			if h.Protocol == "" {
				h.Protocol = strings.TrimSpace(strings.TrimPrefix(l, "Application protocol:"))
			}
		case strings.Contains(l, "Falling back to HTTP/1.1"):
			h.FellBack = true
		}
	})
	if perr != nil {
		return h, perr
	}
	if !seen {
		return h, fmt.Errorf("parse: h2load printed no result: %q", summary(out))
	}
	return h, nil
}
