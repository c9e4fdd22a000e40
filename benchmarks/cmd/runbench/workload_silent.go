package main

import (
	"fmt"
	"strconv"
	"sync"
	"time"
)

// silentWorkload: HTTPS churn next to connections that send a ClientHello
// and then go silent (issue 16: they starved every new handshake).
func silentWorkload() workload {
	w := workload{
		name:      "silent-hello",
		title:     "HTTPS churn, 8 TCP_NODELAY clients, next to silent ClientHellos",
		helper:    "tlsbench",
		tls:       true,
		noCeiling: "plaintext only",
		primary:   "ok_pct",
		higher:    true,
		note: "tlsbench -silent first opens the silent connections (each sends a real ClientHello, then reads but never sends again), waits until the server has replied to each (at most 5 s), then runs the churn load while holding them. " +
			"\"ok %\" is the share of the churn connections that succeeded; peak RSS is the server's VmRSS, sampled every 100 ms from the start of the attack to the end of the run.",
		metrics: []metric{{"ok_pct", "ok %", 1}, {"cps", "conn/s", 0}, {"hs_p99", "handshake p99 ms", 1},
			{"rss_peak_mib", "peak RSS MiB", 0}, {"silent_closed", "silent conns closed by server", 0}, {"errors", "errors", 0}},
	}
	args := func(addr string, o options) []string {
		a := tlsbenchArgs(addr, 8, o.dur, 0, true)
		return append(a[:len(a)-1], "-silent", strconv.Itoa(o.silent), "-json")
	}
	w.commands = func(o options) []string {
		return []string{shellJoin("tlsbench", args(tlsPH, o))}
	}
	w.run = func(e *env, s *server) outcome {
		stop := make(chan struct{})
		var peak int64
		var wg sync.WaitGroup
		wg.Go(func() {
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for {
				if r, err := rssBytes(s.pid); err == nil {
					peak = max(peak, r)
				}
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		})
		res, o := runTLSBench(e, args(s.def.tlsAddr(), e.o), e.o.dur+3*time.Minute)
		close(stop)
		wg.Wait()
		if o.err != nil {
			return o
		}
		total := float64(res.Connections + res.ErrorCount())
		o.values = map[string]float64{"ok_pct": 100 * float64(res.Connections) / total, "cps": res.ConnsPerSec,
			"hs_p99": res.Handshake.P99, "rss_peak_mib": float64(peak) / (1 << 20), "errors": float64(res.ErrorCount())}
		if sl := res.Silent; sl != nil {
			o.values["silent_closed"] = float64(sl.ClosedBefore + sl.ClosedDuring)
			if sl.Failed > 0 || sl.NoReply > 0 {
				o.note = fmt.Sprintf("%d silent connections failed to open, %d got no reply", sl.Failed, sl.NoReply)
			}
		}
		return o
	}
	return w
}
