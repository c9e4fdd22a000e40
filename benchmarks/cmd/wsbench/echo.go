package main

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gwist/gwist/benchmarks/internal/parse"
	"github.com/gwist/gwist/benchmarks/internal/stats"
	"github.com/gwist/gwist/benchmarks/internal/wsclient"
)

// Phases of an echo run.
const (
	phaseWarm int32 = iota
	phaseMeasure
	phaseStop
)

// echoStats is one loop's count of the measured phase.
type echoStats struct {
	rts      int64
	lat      []time.Duration
	badEchos int64
}

// runEcho keeps every connection sending c.burst masked text messages of
// c.size bytes in one write and waiting for their echoes (a round trip),
// over c.workers epoll loops.
func runEcho(c config) (parse.WSBench, error) {
	res := parse.WSBench{Mode: "echo", Addr: c.addr, Path: c.path, Requested: c.n}
	d, err := openConns(c, c.n)
	if err != nil {
		return res, err
	}
	defer closeAll(d.conns)
	res.Open, res.Sources, res.OpenSeconds, res.Errors, res.StatusNot101 = len(d.conns), d.sources, d.seconds, d.errors, d.status
	if res.Open == 0 {
		return res, nil
	}
	logf("echo: %d of %d open in %.1f s; %d loops, %s warm-up, %s measured", res.Open, c.n, d.seconds, c.workers, c.warm, c.dur)
	payload := bytes.Repeat([]byte{'e'}, c.size)
	var phase atomic.Int32
	var loops []*loop
	st := make([]*echoStats, 0, c.workers)
	for i, share := range split(d.conns, c.workers) {
		s := &echoStats{lat: make([]time.Duration, 0, 1<<18)}
		st = append(st, s)
		var l *loop
		l, err = newLoop(share, func(lc *loopConn, size int, at time.Duration) {
			p := phase.Load()
			if size != c.size {
				s.badEchos++
				l.drop(lc)
				return
			}
			if lc.awaited--; lc.awaited > 0 {
				return
			}
			if p == phaseMeasure {
				s.rts++
				s.lat = append(s.lat, at-lc.sentAt)
			}
			if p != phaseStop {
				lc.sentAt, lc.awaited = now(), c.burst
				l.write(lc, lc.frame)
			}
		})
		if err != nil {
			return res, fmt.Errorf("loop %d: %w", i, err)
		}
		defer l.close()
		for _, lc := range l.conns {
			for range c.burst {
				lc.frame = wsclient.AppendMasked(lc.frame, wsclient.OpText, payload, [4]byte{byte(lc.fd), 0x5a, 0xa5, byte(lc.fd >> 8)})
			}
		}
		loops = append(loops, l)
	}
	var wg sync.WaitGroup
	for _, l := range loops {
		for _, lc := range l.conns {
			lc.sentAt, lc.awaited = now(), c.burst
			l.write(lc, lc.frame)
		}
		wg.Go(l.run)
	}
	time.Sleep(c.warm)
	cpu0, srv0, t0 := selfCPU(), serverTimes(c.pid), time.Now()
	phase.Store(phaseMeasure)
	time.Sleep(c.dur)
	phase.Store(phaseStop)
	cpu1, srv1, elapsed := selfCPU(), serverTimes(c.pid), time.Since(t0)
	for _, l := range loops {
		l.stop.Store(true)
	}
	wg.Wait()
	var all []time.Duration
	var bad, dropped int64
	for i, s := range st {
		res.RoundTrips += s.rts
		all = append(all, s.lat...)
		bad += s.badEchos
		dropped += loops[i].dropped.Load()
	}
	if bad > 0 {
		res.Errors["echo-size"] = bad
	}
	if dropped-bad > 0 {
		res.Errors["dropped"] = dropped - bad
	}
	res.Seconds = elapsed.Seconds()
	res.RoundTripsPerS = float64(res.RoundTrips) / res.Seconds
	res.Latency = stats.Summarize(all)
	if res.RoundTrips > 0 {
		res.ClientCPUPerRT = float64((cpu1 - cpu0).Microseconds()) / float64(res.RoundTrips)
		res.ClientCPUShare = (cpu1 - cpu0).Seconds() / res.Seconds
		if srv0 != nil && srv1 != nil {
			user, sys := srv1.user-srv0.user, srv1.sys-srv0.sys
			perRT := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(res.RoundTrips) }
			res.ServerCPUPerRT = perRT(user + sys)
			res.ServerUserPerRT, res.ServerSysPerRT = perRT(user), perRT(sys)
			res.ServerCPUShare = (user + sys).Seconds() / res.Seconds
		}
	}
	return res, nil
}

// serverTimes is the server's CPU time so far, nil without -pid.
func serverTimes(pid int) *cpuTimes {
	if pid <= 0 {
		return nil
	}
	t, err := procTimes(pid)
	if err != nil {
		return nil
	}
	return &t
}

// serverCPU is the server's CPU time so far, or -1 without -pid.
func serverCPU(pid int) time.Duration {
	if pid <= 0 {
		return -1
	}
	d, err := procCPU(pid)
	if err != nil {
		return -1
	}
	return d
}
