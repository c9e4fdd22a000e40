package main

import (
	"context"
	"crypto/tls"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gwist/gwist/benchmarks/internal/parse"
	"github.com/gwist/gwist/benchmarks/internal/stats"
)

// worker results, merged once every worker is done.
type tally struct {
	samples []sample
	errors  map[string]int64
	last    error
}

// runLoad runs c.clients workers until the deadline (-d) or the count (-n)
// is reached. Connections in flight at the deadline are finished and counted.
func runLoad(ctx context.Context, c config, cfg *tls.Config) parse.TLSBench {
	var remaining atomic.Int64
	remaining.Store(c.count)
	start := time.Now()
	deadline := start.Add(c.duration)
	more := func() bool {
		if ctx.Err() != nil {
			return false
		}
		if c.count > 0 {
			return remaining.Add(-1) >= 0
		}
		return time.Now().Before(deadline)
	}
	tallies := make([]tally, c.clients)
	var wg sync.WaitGroup
	for i := range tallies {
		wg.Go(func() {
			t := &tallies[i]
			t.errors = map[string]int64{}
			cl := newClient(c.addr, c.path, c.nodelay, c.timeout, cfg)
			for more() {
				s, err := cl.once(ctx)
				if err != nil {
					var ce *connErr
					if errors.As(err, &ce) {
						t.errors[ce.kind]++
					} else {
						t.errors["other"]++
					}
					t.last = err
					continue
				}
				t.samples = append(t.samples, s)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	return summarize(c, elapsed, tallies)
}

func summarize(c config, elapsed time.Duration, tallies []tally) parse.TLSBench {
	res := parse.TLSBench{Addr: c.addr, Clients: c.clients, NoDelay: c.nodelay, TLS12: c.tls12,
		Resume: c.resume, Seconds: elapsed.Seconds(), Errors: map[string]int64{}}
	var connect, handshake, request, total []time.Duration
	for _, t := range tallies {
		for k, v := range t.errors {
			res.Errors[k] += v
		}
		if t.last != nil && res.ErrorSample == "" {
			res.ErrorSample = t.last.Error()
		}
		for _, s := range t.samples {
			connect = append(connect, s.connect)
			handshake = append(handshake, s.handshake)
			request = append(request, s.request)
			total = append(total, s.total)
			if s.resumed {
				res.Resumed++
			}
		}
	}
	res.Connections = int64(len(total))
	if elapsed > 0 {
		res.ConnsPerSec = float64(res.Connections) / elapsed.Seconds()
	}
	res.Connect = stats.Summarize(connect)
	res.Handshake = stats.Summarize(handshake)
	res.Request = stats.Summarize(request)
	res.Total = stats.Summarize(total)
	return res
}
