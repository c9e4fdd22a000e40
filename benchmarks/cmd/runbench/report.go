package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gwist/gwist/benchmarks/internal/svgchart"
	"github.com/gwist/gwist/benchmarks/servers/cref"
)

// report is everything RESULTS.md says.
type report struct {
	m           machine
	o           options
	tables      []*table
	servers     []serverDef
	interrupted bool
	svgName     string
}

func (r *report) writeMarkdown(w io.Writer) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format, a...) }
	p("# gwist benchmark results\n\n")
	if r.o.quick {
		p("> **Quick smoke run** (`-quick`: short durations, small counts): checks that everything runs; do not quote these numbers.\n\n")
	}
	if r.interrupted {
		p("> **Interrupted**: the run was stopped before the end; tables hold what was measured.\n\n")
	}
	p("- Date: %s (run took %s)\n", r.m.date.Format("2006-01-02 15:04 MST"), r.m.elapsed.Round(1e9))
	p("- Machine: %s, %d cores, Linux %s, %s, RLIMIT_NOFILE %d\n", r.m.cpu, r.m.cores, r.m.kernel, r.m.goVer, r.m.noFile)
	p("- Load generators: %s\n", strings.Join(r.m.tools, "; "))
	p("- gwist: %s\n", r.m.gwist)
	p("- **The load generator runs on the same %d-core machine as the server under test**, so they compete for CPU: absolute figures are low and noisy. Compare servers within a table, and read the ratios.\n", r.m.cores)
	p("- Other load: 1-minute load average %.2f before the run", r.m.loadStart)
	if r.m.othersCPU >= 0 {
		p("; processes outside this run used %.0f%% of the machine's CPU while it ran", 100*r.m.othersCPU)
	}
	p(".")
	if r.m.othersCPU > 0.1 || r.m.loadStart > 0.5*float64(r.m.cores) {
		p(" **Other processes were busy on this machine during the run**: expect more noise than usual, in latency tails most of all.")
	}
	p("\n")
	p("- Cores: every server gets the same %d: the Go servers run with GOMAXPROCS=%d; nginx (C reference) with `worker_processes %d` (a master and %d worker processes; CPU time and RSS are summed over the server's process group); h2o (C reference) with `num-threads: %d`. No taskset: the load generators share the same cores. TLS: Go's client (tlsbench, idleconns) negotiates X25519MLKEM768 with the Go servers but X25519 with nginx and h2o (OpenSSL 3.0), so full handshakes are not like for like.\n",
		r.m.serverCores, r.m.serverCores, r.m.serverCores, r.m.serverCores, r.m.serverCores)
	p("- Method: within a workload each server is started on its own fixed port, warmed up, measured and stopped, one after another; that sequence repeats %d time(s) (A B C … A B C …). Figures are medians over the rounds.\n", r.o.rounds)
	p("- Ratios: \"gwist ÷ best peer\" is taken on each workload's main figure and oriented so that **> 1 means gwist is better** (for lower-is-better figures such as latency, memory and CPU, it is peer ÷ gwist). Peers are nethttp, fasthttp and nbio (wsgorilla and wsnbio in the ws-* workloads); gnetbare (a bare gnet server with a canned response; wsbare, a bare gnet WebSocket echo, in ws-idle and ws-echo) is the ceiling, compared separately where it takes part.\n\n")
	r.writeSummary(w)
	r.writeServers(w)
	for _, t := range r.tables {
		r.writeTable(w, t)
	}
}

func (r *report) writeSummary(w io.Writer) {
	fmt.Fprintf(w, "## Summary\n\n![gwist ÷ best peer](%s)\n\n", r.svgName)
	fmt.Fprintf(w, "| workload | figure | row | gwist row | best Go peer | gwist ÷ best Go peer | nginx | gwist ÷ nginx | h2o | gwist ÷ h2o | gwist ÷ gnetbare |\n|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|\n")
	for _, t := range r.tables {
		if t.skipped != "" {
			fmt.Fprintf(w, "| %s | | | skipped: %s | | | | | | | |\n", t.w.name, t.skipped)
			continue
		}
		label := metricLabel(t.w, t.w.primary)
		peerName, peer, hasPeer := t.bestPeer()
		ceil, hasCeil := t.ceiling()
		peerCell := "none measured"
		if hasPeer {
			peerCell = fmt.Sprintf("%s %s", peerName, fmtNum(peer, metricDecimals(t.w, t.w.primary)))
		}
		dec := metricDecimals(t.w, t.w.primary)
		refCell := func(name string) (string, float64, bool) {
			r := t.row(name)
			if r == nil {
				return "–", 0, false
			}
			if v, ok := t.primary(r); ok {
				return fmtNum(v, dec), v, true
			}
			return statusCell(r.summarize()), 0, false
		}
		ngxCell, ngx, hasNgx := refCell("nginx")
		h2oCell, h2o, hasH2o := refCell("h2o")
		ours := t.ourRows()
		if len(ours) == 0 {
			fmt.Fprintf(w, "| %s | %s | – | – | %s | – | %s | – | %s | – | – |\n", t.w.name, label, peerCell, ngxCell, h2oCell)
		}
		for _, o := range ours {
			v, ok := t.primary(o)
			cell, ratio, vsCeil, vsNgx, vsH2o := statusCell(o.summarize()), "–", "–", "–", "–"
			if ok {
				if hasNgx {
					vsNgx = fmt.Sprintf("**%.2f×**", t.ratio(v, ngx))
				}
				if hasH2o {
					vsH2o = fmt.Sprintf("%.2f×", t.ratio(v, h2o))
				}
				cell = fmtNum(v, metricDecimals(t.w, t.w.primary))
				if hasPeer {
					ratio = fmt.Sprintf("**%.2f×**", t.ratio(v, peer))
				}
				if hasCeil {
					vsCeil = fmt.Sprintf("%.2f×", t.ratio(v, ceil))
				}
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", t.w.name, label, o.def.name, cell, peerCell, ratio,
				ngxCell, vsNgx, h2oCell, vsH2o, vsCeil)
		}
	}
	fmt.Fprintln(w)
}

func (r *report) writeServers(w io.Writer) {
	fmt.Fprintf(w, "## Servers\n\nEach row is started as below (`-tls-addr`, `-cert` and `-key` only for HTTPS workloads; every server gets the same self-signed ECDSA P-256 certificate files).\n\n| row | command |\n|---|---|\n")
	for _, s := range r.servers {
		cmd := shellJoin("bin/"+s.binary, s.args(s.tlsPort != 0, "CERT", "KEY"))
		if c, ok := cref.ByName(s.name); ok && s.cref {
			argv, _ := c.Command("DIR")
			fmt.Fprintf(w, "| %s | `%s` (`servers/cref/%s.conf.tmpl` rendered into DIR with ports %d and %d; `%d` workers) |\n",
				s.name, shellJoin(argv[0], argv[1:]), s.name, s.plainPort, s.tlsPort, r.m.serverCores)
			continue
		}
		fmt.Fprintf(w, "| %s | `%s` |\n", s.name, cmd)
	}
	fmt.Fprintln(w)
}

func (r *report) writeTable(w io.Writer, t *table) {
	fmt.Fprintf(w, "## %s — %s\n\n", t.w.name, t.w.title)
	if t.w.note != "" {
		fmt.Fprintf(w, "%s\n\n", t.w.note)
	}
	fmt.Fprintf(w, "```\n%s\n```\n\n", strings.Join(t.w.commands(r.o), "\n"))
	if t.w.name == "pipelined" {
		fmt.Fprintf(w, "<details><summary>pipeline16.lua</summary>\n\n```lua\n%s```\n\n</details>\n\n", pipelineLua)
	}
	if t.skipped != "" {
		fmt.Fprintf(w, "Skipped: %s\n\n", t.skipped)
		return
	}
	fmt.Fprintf(w, "| server |")
	for _, m := range t.w.metrics {
		fmt.Fprintf(w, " %s |", m.label)
	}
	fmt.Fprintf(w, " rounds | notes |\n|---|")
	for range t.w.metrics {
		fmt.Fprintf(w, "---:|")
	}
	fmt.Fprintf(w, "---:|---|\n")
	for _, row := range t.rows {
		s := row.summarize()
		fmt.Fprintf(w, "| %s |", row.def.name)
		if s.values == nil {
			fmt.Fprintf(w, " %s |", statusCell(s))
			for range t.w.metrics[1:] {
				fmt.Fprintf(w, " |")
			}
			fmt.Fprintf(w, " %s | %s |\n", roundsCell(s), esc(strings.Join(s.notes, "; ")))
			continue
		}
		for _, m := range t.w.metrics {
			v, ok := s.values[m.key]
			if !ok {
				fmt.Fprintf(w, " – |")
				continue
			}
			fmt.Fprintf(w, " %s |", fmtNum(v, m.decimals))
		}
		fmt.Fprintf(w, " %s | %s |\n", roundsCell(s), esc(strings.Join(s.notes, "; ")))
	}
	fmt.Fprintln(w)
	if line := r.ratioLine(t); line != "" {
		fmt.Fprintf(w, "%s\n\n", line)
	}
}

// ratioLine states gwist's ratios for one table.
func (r *report) ratioLine(t *table) string {
	peerName, peer, hasPeer := t.bestPeer()
	ceil, hasCeil := t.ceiling()
	var parts []string
	for _, o := range t.ourRows() {
		v, ok := t.primary(o)
		if !ok {
			continue
		}
		if hasPeer {
			parts = append(parts, fmt.Sprintf("%s ÷ best peer (%s) = **%.2f×**", o.def.name, peerName, t.ratio(v, peer)))
		}
		for _, ref := range crefRows {
			if r := t.row(ref); r != nil {
				if rv, ok := t.primary(r); ok {
					parts = append(parts, fmt.Sprintf("%s ÷ %s = **%.2f×**", o.def.name, ref, t.ratio(v, rv)))
				}
			}
		}
		if hasCeil {
			parts = append(parts, fmt.Sprintf("%s ÷ gnetbare = %.2f×", o.def.name, t.ratio(v, ceil)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Ratios (" + metricLabel(t.w, t.w.primary) + ", > 1 = gwist better): " + strings.Join(parts, "; ") + "."
}

// chart builds the SVG of every gwist-row ratio to the best peer.
func (r *report) chart() svgchart.Chart {
	c := svgchart.Chart{Title: "gwist ÷ best peer (nethttp, fasthttp, nbio)",
		Subtitle: "median of each workload's main figure; > 1 = gwist better (log scale)"}
	if r.o.quick {
		c.Subtitle += " — quick smoke run"
	}
	for _, t := range r.tables {
		if t.skipped != "" {
			continue
		}
		_, peer, hasPeer := t.bestPeer()
		for _, o := range t.ourRows() {
			bar := svgchart.Bar{Label: t.w.name + " · " + o.def.name, Value: math.NaN()}
			if v, ok := t.primary(o); ok && hasPeer {
				bar.Value = t.ratio(v, peer)
			}
			c.Bars = append(c.Bars, bar)
		}
	}
	return c
}

func statusCell(s summary) string {
	switch {
	case s.na != "":
		return "n/a (" + esc(s.na) + ")"
	case s.err != "":
		return "**failed**: " + esc(shorten(s.err, 300))
	default:
		return "–"
	}
}

func roundsCell(s summary) string {
	if s.total == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", s.ok, s.total)
}

func metricLabel(w workload, key string) string {
	for _, m := range w.metrics {
		if m.key == key {
			return m.label
		}
	}
	return key
}

func metricDecimals(w workload, key string) int {
	for _, m := range w.metrics {
		if m.key == key {
			return m.decimals
		}
	}
	return 2
}

// fmtNum formats v with dec decimals and thousands separators.
func fmtNum(v float64, dec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "–"
	}
	s := strconv.FormatFloat(math.Abs(v), 'f', dec, 64)
	intPart, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 {
		b.WriteByte('-')
	}
	for i, c := range intPart {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteByte('.')
		b.WriteString(frac)
	}
	return b.String()
}

// esc keeps text from breaking a Markdown table row.
func esc(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
