package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// trickleEvery is the pace of the plaintext client during accept-tail.
const trickleEvery = 5 * time.Millisecond

// acceptTailWorkload: the TLS handshake's tail for one client while the
// server's other (plaintext) listener has light keep-alive traffic. A server
// whose event loops hold every Go P while they wait makes a goroutine woken
// by Go's netpoller (its accept goroutine) wait for the runtime to take a P
// back, 10–30 ms; that shows here as the handshake's p99.9 and maximum.
func acceptTailWorkload() workload {
	w := workload{
		name:      "accept-tail",
		title:     "HTTPS set-up tail, 1 TCP_NODELAY client, light plaintext traffic beside it",
		helper:    "tlsbench",
		tls:       true,
		variants:  inlineVariant, // inline, the loops are one per P: the case the stall needs
		noCeiling: "plaintext only",
		primary:   "hs_p999",
		higher:    false,
		note: fmt.Sprintf("tlsbench -t 1 -n N -nodelay against the HTTPS listener while a keep-alive client sends GET / "+
			"to the server's plaintext listener every %v; the handshake is timed from the TCP connect's end, so a "+
			"connection the server accepts late shows there. Lower is better.", trickleEvery),
		metrics: []metric{{"hs_p50", "handshake p50 ms", 2}, {"hs_p99", "handshake p99 ms", 2},
			{"hs_p999", "handshake p99.9 ms", 2}, {"hs_max", "handshake max ms", 2},
			{"trickle", "plaintext req", 0}, {"errors", "errors", 0}},
	}
	w.commands = func(o options) []string {
		return []string{shellJoin("tlsbench", tlsbenchArgs(tlsPH, 1, 0, o.cpuN, true)),
			fmt.Sprintf("# meanwhile: GET / on one keep-alive connection to %s every %v", plainPH, trickleEvery)}
	}
	w.run = func(e *env, s *server) outcome {
		addr := s.def.tlsAddr()
		runTool(e.ctx, e.o.warm+time.Minute, e.logPath, e.bin("tlsbench"), tlsbenchArgs(addr, 1, e.o.warm, 0, true)...)
		ctx, stop := context.WithCancel(e.ctx)
		var wg sync.WaitGroup
		var sent int
		var trickleErr error
		wg.Go(func() { sent, trickleErr = trickle(ctx, s.def.plainAddr(), trickleEvery) })
		res, o := runTLSBench(e, tlsbenchArgs(addr, 1, 0, e.o.cpuN, true), 5*time.Minute)
		stop()
		wg.Wait()
		if o.err != nil {
			return o
		}
		if trickleErr != nil {
			return outcome{err: fmt.Errorf("plaintext client: %w", trickleErr)}
		}
		o.values = map[string]float64{"hs_p50": res.Handshake.P50, "hs_p99": res.Handshake.P99,
			"hs_p999": res.Handshake.P999, "hs_max": res.Handshake.Max, "trickle": float64(sent),
			"errors": float64(res.ErrorCount())}
		return o
	}
	return w
}

// trickle sends GET / on one keep-alive connection to addr every period until
// ctx ends, reading each response whole; it returns the requests answered.
func trickle(ctx context.Context, addr string, period time.Duration) (int, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Now()) })
	defer stop()
	br := bufio.NewReader(c)
	req := []byte("GET / HTTP/1.1\r\nHost: bench\r\n\r\n")
	t := time.NewTicker(period)
	defer t.Stop()
	sent := 0
	for {
		select {
		case <-ctx.Done():
			return sent, nil
		case <-t.C:
		}
		if _, err := c.Write(req); err != nil {
			return sent, ignoreStopped(ctx, err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return sent, ignoreStopped(ctx, err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return sent, ignoreStopped(ctx, err)
		}
		if resp.StatusCode != http.StatusOK {
			return sent, fmt.Errorf("GET / answered %s", resp.Status)
		}
		sent++
	}
}

// ignoreStopped drops err when it comes from ctx's end (the deadline set
// to interrupt the connection).
func ignoreStopped(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}
