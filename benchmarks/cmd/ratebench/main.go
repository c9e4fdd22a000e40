// Command ratebench is an open-loop HTTP/1.1 load generator: it sends a
// fixed number of requests per second over a fixed set of keep-alive
// connections and reports latency percentiles up to p99.9.
//
// Each connection owns an equal share of the rate and a schedule of send
// times. A request goes out at its scheduled time, or as soon as the
// previous response is in if the server is late; latency is measured from
// the scheduled time, so a stall is charged to every request it delays
// (the correction wrk2 makes for coordinated omission).
//
//	ratebench -addr 127.0.0.1:8080 -rate 5000 -c 16 -d 10s -warmup 1s
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

type config struct {
	addr, path                string
	rate                      float64
	conns                     int
	duration, warmup, timeout time.Duration
	asJSON                    bool
}

func main() {
	var c config
	flag.StringVar(&c.addr, "addr", "127.0.0.1:8080", "server host:port (plaintext HTTP/1.1)")
	flag.StringVar(&c.path, "path", "/", "request path")
	flag.Float64Var(&c.rate, "rate", 5000, "requests per second, over all connections")
	flag.IntVar(&c.conns, "c", 16, "keep-alive connections")
	flag.DurationVar(&c.duration, "d", 10*time.Second, "measured duration")
	flag.DurationVar(&c.warmup, "warmup", time.Second, "unmeasured run-in before -d starts")
	flag.DurationVar(&c.timeout, "timeout", 5*time.Second, "per-request timeout")
	flag.BoolVar(&c.asJSON, "json", false, "print one JSON object instead of text")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "ratebench:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	if c.rate <= 0 || c.conns < 1 || c.duration <= 0 {
		return errors.New("-rate, -c and -d must be positive")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res := runLoad(ctx, c)
	if c.asJSON {
		return json.NewEncoder(os.Stdout).Encode(res)
	}
	l := res.Latency
	fmt.Printf("ratebench %s%s: %.0f req/s target over %d connections, %.0f achieved in %.2fs (%d responses)\n",
		res.Addr, res.Path, res.Rate, res.Conns, res.Achieved, res.Seconds, res.Completed)
	fmt.Printf("  latency (ms): p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f\n", l.P50, l.P90, l.P99, l.P999, l.Max)
	fmt.Printf("  errors: %v\n", res.Errors)
	return nil
}
