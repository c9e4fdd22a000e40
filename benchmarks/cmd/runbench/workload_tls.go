package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gwist/gwist/benchmarks/internal/parse"
)

func tlsbenchArgs(addr string, clients int, d time.Duration, n int, nodelay bool) []string {
	a := []string{"-addr", addr, "-t", strconv.Itoa(clients)}
	if n > 0 {
		a = append(a, "-n", strconv.Itoa(n))
	} else {
		a = append(a, "-d", secs(d))
	}
	if nodelay {
		a = append(a, "-nodelay")
	}
	return append(a, "-json")
}

// churnWorkload: one HTTPS connection per request, Nagle on or off.
func churnWorkload(clients int, nodelay bool) workload {
	plural := "s"
	if clients == 1 {
		plural = ""
	}
	kind, title := "nagle", "Nagle client"+plural+" (TCP_NODELAY off, like ab and most C clients)"
	if nodelay {
		kind, title = "nodelay", "TCP_NODELAY client"+plural
	}
	w := workload{
		name:      fmt.Sprintf("churn-%s-t%d", kind, clients),
		title:     fmt.Sprintf("HTTPS churn, %d %s", clients, title),
		helper:    "tlsbench",
		tls:       true,
		variants:  noQuickAckVariant,
		noCeiling: "plaintext only",
		primary:   "cps",
		higher:    true,
		note:      "Each connection: TCP connect, TLS 1.3 handshake, one GET / (HTTP/1.1), read the whole response, close (tlsbench closes first). \"hs→1st byte\" runs from handshake done to the first response byte: a Nagle client's request waits there for the server's ACK.",
		metrics: []metric{{"cps", "conn/s", 0}, {"hs_p50", "handshake p50 ms", 2}, {"req_p50", "hs→1st byte p50 ms", 2},
			{"req_p99", "hs→1st byte p99 ms", 2}, {"total_p99", "connection p99 ms", 2}, {"errors", "errors", 0}},
	}
	w.commands = func(o options) []string {
		return []string{shellJoin("tlsbench", tlsbenchArgs(tlsPH, clients, o.dur, 0, nodelay))}
	}
	w.run = func(e *env, s *server) outcome {
		addr := s.def.tlsAddr()
		runTool(e.ctx, e.o.warm+time.Minute, e.logPath, e.bin("tlsbench"), tlsbenchArgs(addr, clients, e.o.warm, 0, nodelay)...)
		res, o := runTLSBench(e, tlsbenchArgs(addr, clients, e.o.dur, 0, nodelay), e.o.dur+2*time.Minute)
		if o.err != nil {
			return o
		}
		o.values = map[string]float64{"cps": res.ConnsPerSec, "hs_p50": res.Handshake.P50, "req_p50": res.Request.P50,
			"req_p99": res.Request.P99, "total_p99": res.Total.P99, "errors": float64(res.ErrorCount())}
		return o
	}
	return w
}

// runTLSBench runs tlsbench and decodes its JSON; a run with no successful
// connection is an error quoting one of the failures.
func runTLSBench(e *env, args []string, timeout time.Duration) (parse.TLSBench, outcome) {
	r := runTool(e.ctx, timeout, e.logPath, e.bin("tlsbench"), args...)
	res, err := parse.ParseTLSBench(r.stdout)
	if err != nil {
		if r.err != nil {
			err = fmt.Errorf("tlsbench: %v: %s", r.err, firstLine(string(r.stderr)))
		}
		return res, outcome{err: err}
	}
	if res.Connections == 0 {
		return res, outcome{err: fmt.Errorf("no connection succeeded (%v; e.g. %s)", res.Errors, res.ErrorSample)}
	}
	var o outcome
	if n := res.ErrorCount(); n > 0 {
		o.note = fmt.Sprintf("%d failed: %v", n, res.Errors)
	}
	return res, o
}

func abArgs(n int, url string) []string {
	return []string{"-n", strconv.Itoa(n), "-c", "8", url}
}

// abWorkload: ApacheBench over HTTPS without keep-alive (ab leaves Nagle on).
func abWorkload() workload {
	w := workload{
		name: "ab-churn", title: "HTTPS churn with ab (8 concurrent, Nagle on)", tool: "ab", tls: true,
		variants: noQuickAckVariant, noCeiling: "plaintext only", primary: "rps", higher: true,
		note:    "ab sends HTTP/1.0 requests without keep-alive: one TLS connection per request; it counts a response as failed on an unclean TLS close.",
		metrics: []metric{{"rps", "req/s", 0}, {"failed", "failed", 0}, {"non2xx", "non-2xx", 0}, {"p99", "p99 ms", 0}},
	}
	w.commands = func(o options) []string {
		return []string{shellJoin("ab", abArgs(o.abN, "https://"+tlsPH+"/"))}
	}
	w.run = func(e *env, s *server) outcome {
		url := "https://" + s.def.tlsAddr() + "/"
		runTool(e.ctx, 2*time.Minute, e.logPath, "ab", abArgs(e.o.abWarm, url)...)
		r := runTool(e.ctx, 5*time.Minute, e.logPath, "ab", abArgs(e.o.abN, url)...)
		res, err := parse.ParseAB(r.combined())
		if err != nil {
			return outcome{err: err}
		}
		o := outcome{values: map[string]float64{"rps": res.RequestsPerSec, "failed": float64(res.Failed),
			"non2xx": float64(res.Non2xx), "p99": res.P99Ms}}
		if r.err != nil {
			o.note = "ab: " + r.err.Error()
		}
		return o
	}
	return w
}

// cpuWorkload: server CPU time per HTTPS connection.
func cpuWorkload() workload {
	w := workload{
		name: "cpu-tls", title: "Server CPU per HTTPS connection", helper: "tlsbench", tls: true,
		noCeiling: "plaintext only", primary: "us_per_conn", higher: false,
		note:    "utime+stime of the server (/proc/PID/stat, all threads) across a fixed tlsbench -n run (TCP_NODELAY clients, so that no run is stretched by ACK stalls), divided by the connections that succeeded.",
		metrics: []metric{{"us_per_conn", "µs CPU/conn", 0}, {"cps", "conn/s", 0}, {"errors", "errors", 0}},
	}
	w.commands = func(o options) []string {
		return []string{shellJoin("tlsbench", tlsbenchArgs(tlsPH, 8, 0, o.cpuN, true))}
	}
	w.run = func(e *env, s *server) outcome {
		addr := s.def.tlsAddr()
		runTool(e.ctx, e.o.warm+time.Minute, e.logPath, e.bin("tlsbench"), tlsbenchArgs(addr, 8, e.o.warm, 0, true)...)
		c0, err := groupCPUSeconds(s.pid)
		if err != nil {
			return outcome{err: err}
		}
		res, o := runTLSBench(e, tlsbenchArgs(addr, 8, 0, e.o.cpuN, true), 5*time.Minute)
		if o.err != nil {
			return o
		}
		c1, err := groupCPUSeconds(s.pid)
		if err != nil {
			return outcome{err: err}
		}
		o.values = map[string]float64{"us_per_conn": (c1 - c0) * 1e6 / float64(res.Connections),
			"cps": res.ConnsPerSec, "errors": float64(res.ErrorCount())}
		return o
	}
	return w
}
