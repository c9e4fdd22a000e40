package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gwist/gwist/benchmarks/internal/parse"
)

// pipelineLua makes wrk send 16 pipelined GET / per write.
const pipelineLua = `-- written by runbench: 16 pipelined GET / per batch
init = function(args)
  local r = {}
  for i = 1, 16 do
    r[i] = wrk.format(nil, "/")
  end
  req = table.concat(r)
end

request = function()
  return req
end
`

// writeLua writes the pipelining script into dir.
func writeLua(dir string) (string, error) {
	p := filepath.Join(dir, "pipeline16.lua")
	return p, os.WriteFile(p, []byte(pipelineLua), 0o644)
}

func wrkArgs(d time.Duration, url, script string) []string {
	a := []string{"-t2", "-c64", "-d" + secs(d), "--latency"}
	if script != "" {
		a = append(a, "-s", script)
	}
	return append(a, url)
}

func wrkWorkload(name, title, path string, pipelined, withTLS bool) workload {
	w := workload{name: name, title: title, tool: "wrk", tls: withTLS, primary: "rps", higher: true,
		metrics: []metric{{"rps", "req/s", 0}, {"p50", "p50 ms", 2}, {"p99", "p99 ms", 2}, {"errors", "errors", 0},
			{"srv_us", "server µs CPU/req", 2}, {"srv_sys_us", "of which system µs", 2}, {"gen_us", "wrk µs CPU/req", 2}}}
	scheme, ph := "http", plainPH
	w.variants = inlineVariant
	if withTLS {
		scheme, ph = "https", tlsPH
		w.noCeiling = "plaintext only"
	}
	if path != "/" {
		w.noCeiling = "canned response ignores the path"
	}
	scriptName := func(e *env) string {
		if pipelined {
			return e.luaFile
		}
		return ""
	}
	w.note = cpuSplitNote
	if pipelined {
		w.note = "wrk's Lua script (written by the runner, below) sends 16 requests per write; wrk counts responses. " + cpuSplitNote
	}
	w.commands = func(o options) []string {
		s := ""
		if pipelined {
			s = "pipeline16.lua"
		}
		return []string{shellJoin("wrk", wrkArgs(o.dur, scheme+"://"+ph+path, s))}
	}
	w.run = func(e *env, s *server) outcome {
		addr := s.def.plainAddr()
		if withTLS {
			addr = s.def.tlsAddr()
		}
		url := scheme + "://" + addr + path
		runTool(e.ctx, e.o.warm+time.Minute, e.logPath, "wrk", wrkArgs(e.o.warm, url, scriptName(e))...)
		c0, cerr := groupCPUSeconds(s.pid)
		s0, serr := groupSystemSeconds(s.pid)
		r := runTool(e.ctx, e.o.dur+time.Minute, e.logPath, "wrk", wrkArgs(e.o.dur, url, scriptName(e))...)
		c1, cerr1 := groupCPUSeconds(s.pid)
		s1, serr1 := groupSystemSeconds(s.pid)
		res, err := parse.ParseWrk(r.combined())
		if err != nil {
			return outcome{err: err}
		}
		o := outcome{values: map[string]float64{
			"rps": res.RequestsPerSec, "p50": ms(res.P50), "p99": ms(res.P99), "errors": float64(res.Errors())}}
		if res.Requests > 0 && cerr == nil && cerr1 == nil {
			o.values["srv_us"] = (c1 - c0) * 1e6 / float64(res.Requests)
			o.values["gen_us"] = r.cpu * 1e6 / float64(res.Requests)
			if serr == nil && serr1 == nil {
				o.values["srv_sys_us"] = (s1 - s0) * 1e6 / float64(res.Requests)
			}
		}
		if res.Requests > 0 && res.Errors()*100 > res.Requests {
			o.note = fmt.Sprintf("%d errors in %d requests", res.Errors(), res.Requests)
		}
		if res.P99 == 0 && res.P50 > 0 {
			// wrk's histogram sometimes prints "99% 0.00us" under
			// pipelining; a zero there is not a measurement.
			delete(o.values, "p99")
			o.note = strings.TrimPrefix(o.note+"; wrk printed p99 0.00us (left out)", "; ")
		}
		return o
	}
	return w
}

// cpuSplitNote explains the CPU columns of the wrk workloads.
const cpuSplitNote = "CPU per request: the server's utime+stime (/proc/PID/stat, all threads) and wrk's own (its rusage) over the measured run, divided by the responses wrk counted. " +
	"wrk and the server share the machine's cores, so req/s ≤ cores × 10⁶ ÷ (server + wrk µs/req): a server that cost nothing would reach at most (peer + wrk) ÷ wrk times a peer's rate."

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
