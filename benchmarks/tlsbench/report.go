package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/gwist/gwist/benchmarks/internal/parse"
	"github.com/gwist/gwist/benchmarks/internal/stats"
)

// printText writes the human-readable report.
func printText(w io.Writer, r parse.TLSBench) {
	nagle := "on"
	if r.NoDelay {
		nagle = "off (TCP_NODELAY)"
	}
	fmt.Fprintf(w, "tlsbench %s: %d clients, Nagle %s, tls12=%v, resume=%v\n", r.Addr, r.Clients, nagle, r.TLS12, r.Resume)
	fmt.Fprintf(w, "  %d connections in %.2fs: %.1f conn/s", r.Connections, r.Seconds, r.ConnsPerSec)
	if r.Resume {
		fmt.Fprintf(w, " (%d resumed)", r.Resumed)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  %-22s %9s %9s %9s %9s %9s\n", "(ms)", "mean", "p50", "p90", "p99", "max")
	row := func(name string, p stats.Percentiles) {
		fmt.Fprintf(w, "  %-22s %9.3f %9.3f %9.3f %9.3f %9.3f\n", name, p.Mean, p.P50, p.P90, p.P99, p.Max)
	}
	row("tcp connect", r.Connect)
	row("tls handshake", r.Handshake)
	row("handshake→first byte", r.Request)
	row("whole connection", r.Total)
	if s := r.Silent; s != nil {
		fmt.Fprintf(w, "  silent connections: %d held (%d failed to open, %d got no reply); the server closed %d before the run, %d during it\n",
			s.Requested, s.Failed, s.NoReply, s.ClosedBefore, s.ClosedDuring)
	}
	if len(r.Errors) == 0 {
		fmt.Fprintln(w, "  errors: none")
		return
	}
	kinds := make([]string, 0, len(r.Errors))
	for k := range r.Errors {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	fmt.Fprint(w, "  errors:")
	for _, k := range kinds {
		fmt.Fprintf(w, " %s=%d", k, r.Errors[k])
	}
	fmt.Fprintln(w)
	if r.ErrorSample != "" {
		fmt.Fprintf(w, "  e.g. %s\n", r.ErrorSample)
	}
}
