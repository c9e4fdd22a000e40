package main

import (
	"bufio"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gwist/gwist/benchmarks/internal/parse"
)

func h2loadArgs(n int, url string) []string {
	return []string{"-n", strconv.Itoa(n), "-c", "16", "-m", "10", url}
}

// h2Workload: h2load over TLS (ALPN h2) or cleartext (prior-knowledge h2c).
func h2Workload(overTLS bool) workload {
	w := workload{name: "h2c", title: "HTTP/2 cleartext (prior knowledge), 16 connections × 10 streams", tool: "h2load",
		noH2: true, primary: "rps", higher: true,
		note: "Servers that do not speak it are detected from h2load's report (no h2 negotiated, or nothing succeeded) and marked n/a. " +
			"Server CPU per request: the server's utime+stime (/proc/PID/stat) over the measured run ÷ requests that succeeded.",
		metrics: []metric{{"rps", "req/s", 0}, {"srv_us", "server µs CPU/req", 2}, {"failed", "failed", 0}}}
	scheme, ph := "http", plainPH
	if overTLS {
		w.name, w.title, w.tls = "h2", "HTTP/2 over TLS (ALPN h2), 16 connections × 10 streams", true
		scheme, ph = "https", tlsPH
	}
	w.commands = func(o options) []string {
		return []string{shellJoin("h2load", h2loadArgs(o.h2N, scheme+"://"+ph+"/"))}
	}
	w.run = func(e *env, s *server) outcome {
		addr := s.def.plainAddr()
		if overTLS {
			addr = s.def.tlsAddr()
		}
		url := scheme + "://" + addr + "/"
		return runH2load(e, s, h2loadArgs(e.o.h2Warm, url), h2loadArgs(e.o.h2N, url))
	}
	return w
}

// runH2load runs h2load with warmArgs (a warm-up that doubles as protocol
// detection: a server that does not speak h2 is n/a), then with args,
// measured: req/s, failures and the server's CPU per succeeded request.
func runH2load(e *env, s *server, warmArgs, args []string) outcome {
	warm := runTool(e.ctx, 2*time.Minute, e.logPath, "h2load", warmArgs...)
	if res, err := parse.ParseH2load(warm.combined()); err != nil {
		return outcome{err: err}
	} else if !res.SpokeH2() {
		return outcome{na: noH2Reason(res)}
	}
	c0, cerr := groupCPUSeconds(s.pid)
	r := runTool(e.ctx, 5*time.Minute, e.logPath, "h2load", args...)
	c1, cerr1 := groupCPUSeconds(s.pid)
	res, err := parse.ParseH2load(r.combined())
	if err != nil {
		return outcome{err: err}
	}
	o := outcome{values: map[string]float64{"rps": res.RequestsPerSec, "failed": float64(res.Failed + res.Errored + res.Timeout)}}
	if res.Succeeded > 0 && cerr == nil && cerr1 == nil {
		o.values["srv_us"] = (c1 - c0) * 1e6 / float64(res.Succeeded)
	}
	if res.Succeeded < res.Total {
		o.note = fmt.Sprintf("%d of %d succeeded", res.Succeeded, res.Total)
	}
	return o
}

func noH2Reason(res parse.H2load) string {
	switch {
	case res.FellBack || res.Protocol == "http/1.1":
		return "no h2: ALPN chose http/1.1"
	case res.Protocol == "h2c":
		return fmt.Sprintf("no h2c: %d of %d succeeded", res.Succeeded, res.Total)
	default:
		return fmt.Sprintf("no h2: %d of %d succeeded", res.Succeeded, res.Total)
	}
}

func idleArgs(addr string, n int, withTLS bool, hold string, extra ...string) []string {
	a := []string{"-addr", addr, "-n", strconv.Itoa(n), "-hold", hold}
	if withTLS {
		a = append(a, "-tls")
	}
	return append(a, extra...)
}

// sseArgs make idleconns hold Server-Sent Events streams that send an
// event a minute: idle listeners.
var sseArgs = []string{"-sse", "-path", "/events?n=100000&ms=60000"}

// idleWorkload: server memory per idle keep-alive connection.
func idleWorkload(withTLS bool) workload {
	w := workload{name: "idle-plain", title: "Memory per idle plaintext keep-alive connection", helper: "idleconns",
		primary: "bytes_per_conn", higher: false,
		metrics: []metric{{"bytes_per_conn", "bytes/conn", 0}, {"open", "conns open", 0},
			{"rss_before_mib", "RSS before MiB", 1}, {"rss_after_mib", "RSS after MiB", 1}}}
	ph := plainPH
	if withTLS {
		w.name, w.title, w.tls, w.noCeiling = "idle-tls", "Memory per idle TLS keep-alive connection", true, "plaintext only"
		ph = tlsPH
	}
	w.note = "(VmRSS after − VmRSS before) / connections open, from /proc/PID/status. Each connection sends one GET, reads the response and then stays open; RSS is read 1 s after the last one opened. A 200-connection warm-up runs first."
	w.commands = func(o options) []string {
		n := o.idlePlain
		if withTLS {
			n = o.idleTLS
		}
		return []string{shellJoin("idleconns", idleArgs(ph, n, withTLS, "5m"))}
	}
	w.run = func(e *env, s *server) outcome {
		addr, n := s.def.plainAddr(), e.o.idlePlain
		if withTLS {
			addr, n = s.def.tlsAddr(), e.o.idleTLS
		}
		return measureIdle(e, s, addr, n, withTLS)
	}
	return w
}

// idleH2Workload: server memory per idle HTTP/2 connection over TLS (ALPN
// h2), to set beside idle-tls.
func idleH2Workload() workload {
	w := workload{name: "idle-h2", title: "Memory per idle HTTP/2 connection (TLS, ALPN h2)", helper: "idleconns",
		primary: "bytes_per_conn", higher: false, tls: true, noCeiling: "plaintext only",
		metrics: []metric{{"bytes_per_conn", "bytes/conn", 0}, {"open", "conns open", 0},
			{"rss_before_mib", "RSS before MiB", 1}, {"rss_after_mib", "RSS after MiB", 1}},
		note: "(VmRSS after − VmRSS before) / connections open. Each connection negotiates h2, does one GET / with Go's HTTP/2 client connection and stays open. A 200-connection warm-up runs first. Servers that do not negotiate h2 are n/a. Compare with idle-tls (HTTP/1.1)."}
	w.commands = func(o options) []string {
		return []string{shellJoin("idleconns", idleArgs(tlsPH, o.idleTLS, true, "5m", "-h2"))}
	}
	w.run = func(e *env, s *server) outcome {
		o := measureIdle(e, s, s.def.tlsAddr(), e.o.idleTLS, true, "-h2")
		if o.err != nil && strings.Contains(o.err.Error(), "no-h2") {
			return outcome{na: "no h2 through ALPN"}
		}
		return o
	}
	return w
}

// idleSSEWorkload: server memory per idle Server-Sent Events listener.
func idleSSEWorkload() workload {
	w := workload{name: "idle-sse", title: "Memory per idle Server-Sent Events listener", helper: "idleconns",
		primary: "bytes_per_conn", higher: false, noCeiling: "no /events route",
		metrics: []metric{{"bytes_per_conn", "bytes/conn", 0}, {"open", "conns open", 0},
			{"rss_before_mib", "RSS before MiB", 1}, {"rss_after_mib", "RSS after MiB", 1}},
		note: "(VmRSS after − VmRSS before) / listeners open. Each listener GETs /events?n=100000&ms=60000 (an event a minute), reads the head and the first event, and stays open. A 200-listener warm-up runs first. Servers without the /events route are n/a."}
	w.commands = func(o options) []string {
		return []string{shellJoin("idleconns", idleArgs(plainPH, o.idlePlain, false, "5m", sseArgs...))}
	}
	w.run = func(e *env, s *server) outcome {
		if s.def.binary == "nbio" {
			// Measured by hand (2026-12-04): `idleconns -n 10000 -c 64
			// -timeout 2s -sse ...` opened 2,046 listeners in 90 s, the rest
			// timing out; waiting for 10,000 would take the run's budget.
			return outcome{na: "nbhttp runs at most about 2,048 blocking handlers at once: later listeners wait for a slot"}
		}
		return measureIdle(e, s, s.def.plainAddr(), e.o.idlePlain, false, sseArgs...)
	}
	return w
}

// measureIdle opens n idle connections (after a warm-up of 200) and
// reports the server's RSS growth per connection.
func measureIdle(e *env, s *server, addr string, n int, withTLS bool, extra ...string) outcome {
	runTool(e.ctx, 2*time.Minute, e.logPath, e.bin("idleconns"), idleArgs(addr, 200, withTLS, "0s", extra...)...)
	time.Sleep(500 * time.Millisecond)
	before, err := groupRSSBytes(s.pid)
	if err != nil {
		return outcome{err: err}
	}
	res, after, err := holdIdle(e, s, idleArgs(addr, n, withTLS, "5m", extra...))
	if err != nil {
		return outcome{err: err}
	}
	if res.Open == 0 {
		if len(extra) > 0 && res.Errors["response"] > 0 {
			return outcome{na: "no event stream at /events"}
		}
		return outcome{err: fmt.Errorf("no connection opened: %v", res.Errors)}
	}
	o := outcome{values: map[string]float64{"bytes_per_conn": float64(after-before) / float64(res.Open),
		"open": float64(res.Open), "rss_before_mib": float64(before) / (1 << 20), "rss_after_mib": float64(after) / (1 << 20)}}
	if res.Open < res.Requested {
		o.note = fmt.Sprintf("%d of %d opened: %v", res.Open, res.Requested, res.Errors)
	}
	return o
}

// holdIdle starts idleconns, waits for its report, reads the server's RSS
// while the connections are held, then releases them.
func holdIdle(e *env, s *server, args []string) (parse.Idle, int64, error) {
	var res parse.Idle
	cmd := exec.CommandContext(e.ctx, e.bin("idleconns"), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return res, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return res, 0, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return res, 0, err
	}
	defer func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if l := sc.Text(); strings.HasPrefix(l, "{") {
				lines <- l
				return
			}
		}
		close(lines)
	}()
	select {
	case l, ok := <-lines:
		if !ok {
			return res, 0, fmt.Errorf("idleconns exited without a report: %s", firstLine(stderr.String()))
		}
		if res, err = parse.ParseIdle([]byte(l)); err != nil {
			return res, 0, err
		}
	case <-time.After(5 * time.Minute):
		return res, 0, fmt.Errorf("idleconns did not finish opening within 5 minutes")
	case <-e.ctx.Done():
		return res, 0, e.ctx.Err()
	}
	time.Sleep(time.Second)
	if !s.alive() {
		return res, 0, fmt.Errorf("server died holding %d connections: %s", res.Open, s.log.lastLines(2))
	}
	after, err := groupRSSBytes(s.pid)
	return res, after, err
}

func ratebenchArgs(addr string, rate int, d, warm time.Duration) []string {
	return []string{"-addr", addr, "-rate", strconv.Itoa(rate), "-c", "16", "-d", secs(d), "-warmup", secs(warm), "-json"}
}

// rateWorkload: latency at a fixed, moderate, open-loop request rate.
func rateWorkload() workload {
	w := workload{name: "rate", title: "Latency at a fixed 5,000 req/s (open loop, 16 keep-alive connections)",
		helper: "ratebench", primary: "p99", higher: false,
		note: "ratebench schedules every request at a fixed time and measures from that time, so a stall counts against every request it delays (no coordinated omission). Lower is better.",
		metrics: []metric{{"p50", "p50 ms", 3}, {"p90", "p90 ms", 3}, {"p99", "p99 ms", 3}, {"p999", "p99.9 ms", 3},
			{"achieved", "achieved req/s", 0}, {"errors", "errors", 0}}}
	w.commands = func(o options) []string {
		return []string{shellJoin("ratebench", ratebenchArgs(plainPH, o.rate, o.rateDur, o.rateWarm))}
	}
	w.run = func(e *env, s *server) outcome {
		args := ratebenchArgs(s.def.plainAddr(), e.o.rate, e.o.rateDur, e.o.rateWarm)
		r := runTool(e.ctx, e.o.rateDur+e.o.rateWarm+2*time.Minute, e.logPath, e.bin("ratebench"), args...)
		res, err := parse.ParseRateBench(r.stdout)
		if err != nil {
			return outcome{err: err}
		}
		if res.Completed == 0 {
			return outcome{err: fmt.Errorf("no response: %v", res.Errors)}
		}
		o := outcome{values: map[string]float64{"p50": res.Latency.P50, "p90": res.Latency.P90, "p99": res.Latency.P99,
			"p999": res.Latency.P999, "achieved": res.Achieved, "errors": float64(res.ErrorCount())}}
		if res.Achieved < 0.95*res.Rate {
			o.note = fmt.Sprintf("only %.0f of %.0f req/s", res.Achieved, res.Rate)
		}
		return o
	}
	return w
}
