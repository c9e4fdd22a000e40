package parse

import (
	"fmt"
	"strconv"
	"strings"
)

// AB is what an ApacheBench run reports.
type AB struct {
	Complete       int64   // "Complete requests:"
	Failed         int64   // "Failed requests:"
	Non2xx         int64   // "Non-2xx responses:" (absent when zero)
	RequestsPerSec float64 // "Requests per second:"
	MeanMs         float64 // first "Time per request:" (mean, per concurrent client)
	P50Ms, P99Ms   float64 // from "Percentage of the requests served within ..."
}

// ParseAB reads ab's report. It fails when the report has no
// "Requests per second:" line, quoting the first line ab printed.
func ParseAB(out string) (AB, error) {
	var a AB
	var seen, meanSeen bool
	lines(out, func(l string) {
		key, val, ok := strings.Cut(l, ":")
		if !ok {
			f := strings.Fields(l)
			if len(f) >= 2 && (f[0] == "50%" || f[0] == "99%") {
				v, _ := strconv.ParseFloat(f[1], 64)
				if f[0] == "50%" {
					a.P50Ms = v
				} else {
					a.P99Ms = v
				}
			}
			return
		}
		switch key {
		case "Complete requests":
			a.Complete = int64(must(firstField(val)))
		case "Failed requests":
			a.Failed = int64(must(firstField(val)))
		case "Non-2xx responses":
			a.Non2xx = int64(must(firstField(val)))
		case "Requests per second":
			if v, err := firstField(val); err == nil {
				a.RequestsPerSec, seen = v, true
			}
		case "Time per request":
			if !meanSeen {
				a.MeanMs, meanSeen = must(firstField(val)), true
			}
		}
	})
	if !seen {
		return a, fmt.Errorf("parse: ab printed no Requests per second: %q", abReason(out))
	}
	return a, nil
}

// abReason picks the most telling line of a failed ab run: the last line
// that is not boilerplate.
func abReason(out string) string {
	var last string
	lines(out, func(l string) {
		if l != "" && !strings.HasPrefix(l, "Benchmarking") && !strings.HasPrefix(l, "Licensed") &&
			!strings.HasPrefix(l, "Copyright") && !strings.HasPrefix(l, "This is ApacheBench") {
			last = l
		}
	})
	return last
}

func must(v float64, err error) float64 {
	if err != nil {
		return 0
	}
	return v
}
