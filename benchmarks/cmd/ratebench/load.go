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

	"github.com/gwist/gwist/benchmarks/internal/parse"
	"github.com/gwist/gwist/benchmarks/internal/stats"
)

// conn is one keep-alive connection and its share of the schedule.
type conn struct {
	c       config
	request []byte
	nc      net.Conn
	br      *bufio.Reader
	samples []time.Duration
	errors  map[string]int64
}

// runLoad drives c.conns connections until warmup+duration has passed.
func runLoad(ctx context.Context, c config) parse.RateBench {
	req := []byte(fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: ratebench\r\n\r\n", c.path, c.addr))
	interval := time.Duration(float64(c.conns) / c.rate * float64(time.Second))
	start := time.Now().Add(10 * time.Millisecond)
	measureFrom := start.Add(c.warmup)
	end := measureFrom.Add(c.duration)
	conns := make([]*conn, c.conns)
	var wg sync.WaitGroup
	for i := range conns {
		cn := &conn{c: c, request: req, errors: map[string]int64{}}
		conns[i] = cn
		offset := time.Duration(i) * interval / time.Duration(c.conns)
		wg.Go(func() { cn.drive(ctx, start.Add(offset), interval, measureFrom, end) })
	}
	wg.Wait()
	// A late server stretches the run past end; rate over the real span.
	elapsed := max(time.Since(measureFrom), c.duration)
	res := parse.RateBench{Addr: c.addr, Path: c.path, Rate: c.rate, Conns: c.conns,
		Seconds: elapsed.Seconds(), Errors: map[string]int64{}}
	var all []time.Duration
	for _, cn := range conns {
		all = append(all, cn.samples...)
		for k, v := range cn.errors {
			res.Errors[k] += v
		}
	}
	res.Completed = int64(len(all))
	res.Achieved = float64(res.Completed) / elapsed.Seconds()
	res.Latency = stats.Summarize(all)
	return res
}

// drive sends requests at first, first+interval, ... until end, recording
// the latency of those scheduled at or after measureFrom.
func (cn *conn) drive(ctx context.Context, first time.Time, interval time.Duration, measureFrom, end time.Time) {
	defer func() {
		if cn.nc != nil {
			cn.nc.Close()
		}
	}()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for sched := first; sched.Before(end); sched = sched.Add(interval) {
		if wait := time.Until(sched); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				return
			case <-timer.C:
			}
		}
		if err := cn.roundTrip(); err != nil {
			if !sched.Before(measureFrom) {
				cn.errors[err.kind]++
			}
			if cn.nc != nil {
				cn.nc.Close()
				cn.nc = nil
			}
			continue
		}
		if !sched.Before(measureFrom) {
			cn.samples = append(cn.samples, time.Since(sched))
		}
	}
}

type reqErr struct{ kind string }

// roundTrip sends one request and reads its whole response, dialing first
// when the connection is not open.
func (cn *conn) roundTrip() *reqErr {
	if cn.nc == nil {
		nc, err := net.DialTimeout("tcp", cn.c.addr, cn.c.timeout)
		if err != nil {
			return &reqErr{"dial"}
		}
		cn.nc = nc
		if cn.br == nil {
			cn.br = bufio.NewReaderSize(nc, 16<<10)
		} else {
			cn.br.Reset(nc)
		}
	}
	_ = cn.nc.SetDeadline(time.Now().Add(cn.c.timeout))
	if _, err := cn.nc.Write(cn.request); err != nil {
		return &reqErr{"write"}
	}
	resp, err := http.ReadResponse(cn.br, nil)
	if err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return &reqErr{"timeout"}
		}
		return &reqErr{"read"}
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return &reqErr{"read"}
	}
	if resp.StatusCode != http.StatusOK {
		return &reqErr{"status"}
	}
	if resp.Close {
		cn.nc.Close()
		cn.nc = nil
	}
	return nil
}
