// Command wsbench is the WebSocket load generator of gwist's benchmarks.
// It drives every server with the same client: raw sockets, its own masked
// framing (internal/wsclient), epoll instead of a goroutine per connection.
//
//	wsbench -mode idle -addr 127.0.0.1:8080 -n 19000 -pid PID
//	wsbench -mode echo -addr 127.0.0.1:8080 -c 1000 -d 10s -size 16 -pid PID
//	wsbench -mode echo -addr 127.0.0.1:8080 -c 64 -burst 8 -pid PID
//	wsbench -mode broadcast -addr 127.0.0.1:8080 -n 10000 -size 1024 -rounds 5
//
// idle opens N connections to -path (default /ws) and holds them without a
// goroutine each, reads the server's VmRSS (-pid) before and after, then
// checks that a sample is alive with one echo. echo keeps -c connections
// each sending a -size byte masked text message and waiting for its echo,
// and reports round trips per second, latency and CPU per round trip; with
// -burst B each round trip is B messages sent in one write and their B
// echoes (a pipelining client: the server reads several messages at once).
// broadcast subscribes N connections to /ws/sub, then POSTs
// /broadcast?bytes=SIZE -rounds times and reports the time from the POST to
// the last subscriber's delivery. Connections are spread over -sources
// source addresses (127.R.x.y) to pass the ephemeral-port limit of one.
// The result is one JSON line (parse.WSBench) on stdout; progress goes to
// stderr.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"time"

	"github.com/gwist/gwist/benchmarks/internal/parse"
)

type config struct {
	mode, addr, path string
	n, parallel      int
	sources          int
	size             int
	burst            int
	dur, warm        time.Duration
	rounds           int
	workers          int
	pid              int
	check            int
	timeout          time.Duration
	settle           time.Duration
	hold             time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.mode, "mode", "echo", "idle, echo or broadcast")
	flag.StringVar(&c.addr, "addr", "127.0.0.1:8080", "server IPv4 host:port")
	flag.StringVar(&c.path, "path", "", "upgrade path (default /ws; /ws/sub for broadcast)")
	flag.IntVar(&c.n, "n", 0, "connections (default: idle 10000, echo = -c, broadcast 10000)")
	flag.IntVar(&c.n, "c", 0, "same as -n")
	flag.IntVar(&c.parallel, "dial", 64, "connections being opened at once")
	flag.IntVar(&c.sources, "sources", 0, "source addresses to spread connections over (0: enough for the ephemeral range)")
	flag.IntVar(&c.size, "size", 0, "message bytes (default: echo 16, broadcast 1024)")
	flag.IntVar(&c.burst, "burst", 1, "echo: messages sent in one write per round trip")
	flag.DurationVar(&c.dur, "d", 10*time.Second, "echo: measured duration")
	flag.DurationVar(&c.warm, "warmup", 2*time.Second, "echo: unmeasured run before -d")
	flag.IntVar(&c.rounds, "rounds", 5, "broadcast: measured broadcasts (after one warm-up)")
	flag.IntVar(&c.workers, "workers", runtime.GOMAXPROCS(0), "epoll loops driving the connections")
	flag.IntVar(&c.pid, "pid", 0, "server process id, for its RSS (idle) and CPU (echo)")
	flag.IntVar(&c.check, "check", 1000, "idle: connections checked with one echo at the end (0: all)")
	flag.DurationVar(&c.timeout, "timeout", 10*time.Second, "per-connection setup and check timeout")
	flag.DurationVar(&c.settle, "settle", time.Second, "idle: wait before reading RSS after the last connection opened")
	flag.DurationVar(&c.hold, "hold", 0, "idle: keep the connections open this long after the report (for profiling the server)")
	flag.Parse()
	res, err := run(c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "wsbench: %v\n", err)
		os.Exit(1)
	}
	line, _ := json.Marshal(res)
	fmt.Println(string(line))
}

func run(c config) (parse.WSBench, error) {
	if err := defaults(&c); err != nil {
		return parse.WSBench{}, err
	}
	switch c.mode {
	case "idle":
		return runIdle(c)
	case "echo":
		return runEcho(c)
	case "broadcast":
		return runBroadcast(c)
	}
	return parse.WSBench{}, fmt.Errorf("-mode %q: want idle, echo or broadcast", c.mode)
}

func defaults(c *config) error {
	if c.n == 0 {
		c.n = map[string]int{"idle": 10000, "echo": 1000, "broadcast": 10000}[c.mode]
	}
	if c.size == 0 {
		c.size = map[string]int{"echo": 16, "broadcast": 1024, "idle": 16}[c.mode]
	}
	if c.path == "" {
		c.path = "/ws"
		if c.mode == "broadcast" {
			c.path = "/ws/sub"
		}
	}
	c.workers = max(1, c.workers)
	c.burst = max(1, c.burst)
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err == nil && uint64(c.n+c.parallel+64) > r.Cur {
		return fmt.Errorf("-n %d needs about %d file descriptors, RLIMIT_NOFILE is %d (hard %d): "+
			"run under `prlimit --nofile=N:N` as root with CAP_SYS_RESOURCE, or lower -n", c.n, c.n+c.parallel+64, r.Cur, r.Max)
	}
	return nil
}

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "wsbench: "+format+"\n", a...)
}
