package main

import (
	"fmt"
	"strconv"
	"syscall"
	"time"

	"github.com/gwist/gwist/benchmarks/internal/parse"
)

// The rows of the WebSocket workloads: gwist's examples/hello (its /ws;
// n/a while hello has none) for idle and echo, servers/wsgwist (the peers'
// three routes on gwist's API) for all three, wsgwist-inline (callbacks
// on the event loop) for idle and echo, the two WebSocket peers, and
// wsbare (bare gnet echoing frames: the ceiling) for idle and echo.
var (
	wsEchoRows      = []string{"gwist", "wsgwist", "wsgwist-inline", "wsgorilla", "wsnbio", "wsbare"}
	wsBroadcastRows = []string{"wsgwist", "wsgorilla", "wsnbio"}
)

// wsIdleCount is how many idle connections the run can hold: o.wsIdle,
// or less when RLIMIT_NOFILE (which the servers and wsbench inherit from
// the runner) is lower: an eighth of it less 500, because gwist's default
// connection cap (gwist.WithMaxConns) is the limit less an eighth and
// every server should run with its defaults.
func wsIdleCount(o options) int {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err == nil {
		if fit := int(r.Cur) - int(r.Cur)/8 - 500; fit < o.wsIdle {
			return max(100, fit)
		}
	}
	return o.wsIdle
}

func wsbenchArgs(mode, addr string, pid int, extra ...string) []string {
	a := []string{"-mode", mode, "-addr", addr}
	if pid > 0 {
		a = append(a, "-pid", strconv.Itoa(pid))
	}
	return append(a, extra...)
}

func wsIdleArgs(o options, addr string, pid int) []string {
	return wsbenchArgs("idle", addr, pid, "-n", strconv.Itoa(wsIdleCount(o)))
}

func wsEchoArgs(o options, addr string, pid int) []string {
	return wsbenchArgs("echo", addr, pid, "-c", strconv.Itoa(o.wsEchoConns), "-d", secs(o.wsEchoDur),
		"-warmup", secs(o.warm), "-size", "16")
}

func wsBroadcastArgs(o options, addr string, pid int) []string {
	return wsbenchArgs("broadcast", addr, pid, "-n", strconv.Itoa(o.wsSubs), "-size", "1024",
		"-rounds", strconv.Itoa(o.wsBroadcastRounds))
}

// runWSBench runs wsbench against s and decodes its report; a server
// without the route is n/a.
func runWSBench(e *env, s *server, timeout time.Duration, args []string) (parse.WSBench, outcome, bool) {
	r := runTool(e.ctx, timeout, e.logPath, e.bin("wsbench"), args...)
	res, err := parse.ParseWSBench(r.stdout)
	if err != nil {
		if r.err != nil {
			err = fmt.Errorf("%v: %s", r.err, firstLine(string(r.stderr)))
		}
		return res, outcome{err: err}, false
	}
	if res.Open == 0 {
		if res.StatusNot101 == 404 {
			return res, outcome{na: "no WebSocket route at " + res.Path + " (404)"}, false
		}
		return res, outcome{err: fmt.Errorf("no connection upgraded: %v", res.Errors)}, false
	}
	return res, outcome{}, true
}

func openNote(res parse.WSBench) string {
	if res.Open < res.Requested {
		return fmt.Sprintf("%d of %d opened: %v", res.Open, res.Requested, res.Errors)
	}
	return ""
}

// wsIdleWorkload: server memory per idle WebSocket connection.
func wsIdleWorkload() workload {
	w := workload{name: "ws-idle", title: "Memory per idle WebSocket connection", helper: "wsbench",
		rows: wsEchoRows, primary: "bytes_per_conn", higher: false,
		metrics: []metric{{"bytes_per_conn", "bytes/conn", 0}, {"open", "conns open", 0},
			{"rss_before_mib", "RSS before MiB", 1}, {"rss_after_mib", "RSS after MiB", 1}, {"check_failed", "check failed", 0}},
		note: "(VmRSS after − VmRSS before) / connections open, from /proc/PID/status. Each connection does the opening handshake on /ws (the 101 and its Sec-WebSocket-Accept checked) and stays silent, spread over source addresses 127.R.x.y; 200 connections are opened and closed first; RSS is read 1 s after the last one opened, then 1,000 of them, evenly spread, each echo one message (check failed counts those that did not). The count is 100,000, or RLIMIT_NOFILE less an eighth less 500 when that is lower (the server and wsbench each need a descriptor per connection, and gwist's default connection cap is RLIMIT_NOFILE less an eighth); the command line shows the count used."}
	w.commands = func(o options) []string {
		return []string{shellJoin("wsbench", wsIdleArgs(o, plainPH, 0)) + " -pid SERVERPID"}
	}
	w.run = func(e *env, s *server) outcome {
		res, o, ok := runWSBench(e, s, 10*time.Minute, wsIdleArgs(e.o, s.def.plainAddr(), s.pid))
		if !ok {
			return o
		}
		o = outcome{values: map[string]float64{"bytes_per_conn": res.BytesPerConn, "open": float64(res.Open),
			"rss_before_mib": float64(res.RSSBefore) / (1 << 20), "rss_after_mib": float64(res.RSSAfter) / (1 << 20),
			"check_failed": float64(res.CheckFailed)}, note: openNote(res)}
		return o
	}
	return w
}

// wsEchoWorkload: echo round trips per second over many connections.
func wsEchoWorkload() workload {
	w := workload{name: "ws-echo", title: "WebSocket echo, 1,000 connections, 16-byte text messages", helper: "wsbench",
		rows: wsEchoRows, primary: "rts", higher: true,
		metrics: []metric{{"rts", "round trips/s", 0}, {"p50", "p50 ms", 3}, {"p99", "p99 ms", 3},
			{"server_us", "server µs/rt", 2}, {"client_us", "client µs/rt", 2}, {"client_cores", "client cores", 2}, {"errors", "errors", 0}},
		note: "Each connection sends one masked 16-byte text message and waits for its echo, again and again (closed loop); wsbench drives all of them from 2 epoll loops with its own framing, so the client costs the same for every server. CPU per round trip from /proc/PID/stat (server) and getrusage (client) over the measured part."}
	w.commands = func(o options) []string {
		return []string{shellJoin("wsbench", wsEchoArgs(o, plainPH, 0)) + " -pid SERVERPID"}
	}
	w.run = func(e *env, s *server) outcome {
		res, o, ok := runWSBench(e, s, e.o.wsEchoDur+e.o.warm+2*time.Minute, wsEchoArgs(e.o, s.def.plainAddr(), s.pid))
		if !ok {
			return o
		}
		return outcome{values: map[string]float64{"rts": res.RoundTripsPerS, "p50": res.Latency.P50, "p99": res.Latency.P99,
			"server_us": res.ServerCPUPerRT, "client_us": res.ClientCPUPerRT, "client_cores": res.ClientCPUShare,
			"errors": float64(res.ErrorCount())}, note: openNote(res)}
	}
	return w
}

// wsBroadcastWorkload: time for one message to reach every subscriber.
func wsBroadcastWorkload() workload {
	w := workload{name: "ws-broadcast", title: "WebSocket broadcast of 1 KiB to 10,000 subscribers", helper: "wsbench",
		rows: wsBroadcastRows, primary: "last", higher: false,
		metrics: []metric{{"last", "to last ms", 1}, {"p50", "to median ms", 1}, {"post", "POST ms", 1},
			{"server_cpu", "server CPU ms", 1}, {"delivered", "delivered", 0}},
		note: "Subscribers hold /ws/sub; each round POSTs /broadcast?bytes=1024 (the server hands one binary message to every subscriber, then answers 200) and times from just before the POST to the last subscriber's (and the median one's) whole message, read by wsbench's epoll loops; server CPU ms is the server's utime+stime over the same span (/proc/PID/stat, 10 ms ticks). One warm-up broadcast, then the rounds; figures are medians over them (and then over the runner's rounds). delivered is the lowest count of a round."}
	w.commands = func(o options) []string {
		return []string{shellJoin("wsbench", wsBroadcastArgs(o, plainPH, 0)) + " -pid SERVERPID"}
	}
	w.run = func(e *env, s *server) outcome {
		res, o, ok := runWSBench(e, s, 5*time.Minute, wsBroadcastArgs(e.o, s.def.plainAddr(), s.pid))
		if !ok {
			return o
		}
		delivered := res.Open
		for _, r := range res.Rounds {
			delivered = min(delivered, r.Delivered)
		}
		o = outcome{values: map[string]float64{"last": res.MedianLastMs, "p50": res.MedianP50Ms, "post": res.MedianPostMs,
			"server_cpu": res.MedianServerCPUMs, "delivered": float64(delivered)}, note: openNote(res)}
		if delivered < res.Open && o.note == "" {
			o.note = fmt.Sprintf("a round reached only %d of %d subscribers", delivered, res.Open)
		}
		return o
	}
	return w
}
