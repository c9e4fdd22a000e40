package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gwist/gwist/internal/hostile"
)

// print writes the report as a two-column Markdown table.
func (r *report) print(w io.Writer) {
	row := func(k, format string, args ...any) { fmt.Fprintf(w, "| %s | %s |\n", k, fmt.Sprintf(format, args...)) }
	fmt.Fprintf(w, "| %s vs %s | |\n|---|---|\n", strings.Join(r.Attacks, " + "), r.Target)
	row("attack ran", "%v of %v%s", dur(r.AttackEnd), r.Duration, stopped(r.Stopped))
	if s := r.RSS; s != nil {
		row("RSS MB before / peak / end / after", "%s / %s (at %v) / %s / %s (%v after the attack)",
			mb(s.Before), mb(s.Peak), dur(s.PeakAt), mb(s.End), mb(s.After), dur(s.AfterWait))
		row("anonymous RSS MB before / peak / end / after", "%s / %s / %s / %s",
			mb(s.AnonBefore), mb(s.AnonPeak), mb(s.AnonEnd), mb(s.AnonAfter))
		if s.Recovered {
			row("anonymous RSS back within 20 % of before", "%v after the attack", dur(s.RecoveredAfter))
		} else {
			row("anonymous RSS back within 20 % of before", "no (watched %v)", dur(s.AfterWait))
		}
		if s.Err != "" {
			row("RSS error", "%s", s.Err)
		}
	}
	if r.ProbeError != "" {
		row("live GET: no result", "%s", r.ProbeError)
	}
	p := r.Probe
	row("live GET: count / 200 / non-200 (errors)", "%d / %d / %d (%d)%s", p.Count, p.OK, p.Non200, p.Errors, statuses(p.Statuses))
	row("live GET: p50 / p99 / max", "%v / %v / %v", dur(p.P50), dur(p.P99), dur(p.Max))
	if p.Non200 > 0 {
		row("live GET: first non-200", "at %v%s", dur(p.FirstNon200), quoted(p.FirstError))
	}
	if b := r.Burst; b != nil {
		if b.Ended {
			row("opening burst (server busy)", "until %v into the attack", dur(b.End))
		} else {
			row("opening burst (server busy)", "to the end: the server was never quiet")
		}
		for _, ph := range []struct {
			name string
			l    hostile.Latencies
		}{{"in", b.During}, {"after", b.After}} {
			row("live GET "+ph.name+" the burst: count, p50 / p99 / max", "%d, %v / %v / %v", ph.l.Count, dur(ph.l.P50), dur(ph.l.P99), dur(ph.l.Max))
		}
	}
	if f := r.Ping; f != nil {
		r.printPing(row, "ping-flood", f)
	}
	if f := r.PingRead; f != nil {
		r.printPing(row, "ping-flood-read", f)
	}
	if n := r.NoRead; n != nil {
		row("ws-noread: conns", "%d dialed%s", n.Dialed, errs(n.ErrorsAll, n.Errors))
		row("ws-noread: MB attempted / written", "%s / %s", mb(n.Attempted), mb(n.Written))
		row("ws-noread: conns complete / blocked", "%d / %d", n.Complete, n.Blocked)
		avg := int64(0)
		if n.Dialed > 0 {
			avg = n.Written / int64(n.Dialed)
		}
		row("ws-noread: KB written per conn min / avg / max", "%d / %d / %d", n.MinWritten>>10, avg>>10, n.MaxWritten>>10)
		row("ws-noread: closed by server", "%s", closes(n.Closed, n.Dialed, n.FirstClose, n.LastClose))
	}
	if h := r.H2Stall; h != nil {
		row("h2-stall: conns / streams opened", "%d / %d (server MAX_CONCURRENT_STREAMS %d)%s",
			h.Dialed, h.Opened, h.MaxConcurrentStreams, errs(h.ErrorsAll, h.Errors))
		var outs []string
		for _, k := range slices.Sorted(maps.Keys(h.Outcomes)) {
			outs = append(outs, fmt.Sprintf("%s %d", k, h.Outcomes[k]))
		}
		row("h2-stall: stream outcomes", "%s", strings.Join(outs, ", "))
		if h.LastEnd > 0 {
			row("h2-stall: streams ended by the server", "first at %v, last at %v", dur(h.FirstEnd), dur(h.LastEnd))
		}
		row("h2-stall: conns closed by server", "%s", closes(h.ConnsClosed.Closed, h.Dialed, h.ConnsClosed.FirstClose, h.ConnsClosed.LastClose))
		if len(h.GoAways) > 0 {
			row("h2-stall: GOAWAY", "%s", strings.Join(h.GoAways, "; "))
		}
	}
}

func (r *report) printPing(row func(k, f string, a ...any), name string, f *hostile.PingFloodResult) {
	secs := max(f.Elapsed.Seconds(), 1e-3)
	row(name+": conns", "%d dialed%s", f.Dialed, errs(f.ErrorsAll, f.Errors))
	row(name+": pings sent / pongs read / MB read", "%d (%.0f/s) / %d / %s", f.PingsSent, float64(f.PingsSent)/secs, f.Pongs, mb(f.BytesRead))
	row(name+": closed by server", "%s", closes(f.Closed, f.Dialed, f.FirstClose, f.LastClose))
	for i, c := range f.Conns {
		if i >= 4 {
			break
		}
		how := "still open"
		if c.ClosedByServer {
			how = fmt.Sprintf("closed at %v (%s", dur(c.ClosedAt), c.HowClosed)
			if c.CloseCode != 0 {
				how += fmt.Sprintf(", close code %d", c.CloseCode)
			}
			how += ")"
		}
		row(fmt.Sprintf("%s: conn %d", name, i), "%s; MB written %s, last write progress at %v",
			how, mb(c.BytesWritten), dur(c.LastProgress))
	}
}

func mb(b int64) string { return fmt.Sprintf("%.1f", float64(b)/(1<<20)) }

func dur(d time.Duration) time.Duration {
	if d < 10*time.Millisecond {
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Millisecond)
}

func stopped(s string) string {
	if s == "" {
		return ""
	}
	return " (stopped: " + s + ")"
}

func quoted(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" (first error %q)", s)
}

func statuses(m map[int]int) string {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != 200 && m[k] > 0 {
			out = append(out, fmt.Sprintf("%d×%d", m[k], k))
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " [" + strings.Join(out, ", ") + "]"
}

func errs(n int, list []string) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(", %d errors: %s", n, strings.Join(list, "; "))
}

func closes(n, of int, first, last time.Duration) string {
	if n == 0 {
		return fmt.Sprintf("0 of %d", of)
	}
	return fmt.Sprintf("%d of %d, first at %v, last at %v", n, of, dur(first), dur(last))
}
