package main

import (
	"context"
	"path/filepath"
	"strconv"
	"time"
)

// options are the sizes of every workload; -quick shrinks them.
type options struct {
	quick              bool
	rounds             int
	dur, warm          time.Duration // wrk and tlsbench -d, and their warm-ups
	abN, abWarm        int
	h2N, h2Warm        int
	idlePlain, idleTLS int
	cpuN               int
	silent             int
	rate               int
	rateDur, rateWarm  time.Duration
	wsIdle             int // ws-idle connections (capped by RLIMIT_NOFILE)
	wsEchoConns        int
	wsEchoDur          time.Duration
	wsSubs             int // ws-broadcast subscribers
	wsBroadcastRounds  int // broadcasts per ws-broadcast measurement
}

func fullOptions() options {
	return options{rounds: 2, dur: 10 * time.Second, warm: 2 * time.Second, abN: 3000, abWarm: 300,
		h2N: 100000, h2Warm: 5000, idlePlain: 10000, idleTLS: 5000, cpuN: 3000, silent: 10000,
		rate: 5000, rateDur: 10 * time.Second, rateWarm: 2 * time.Second,
		wsIdle: 100000, wsEchoConns: 1000, wsEchoDur: 10 * time.Second, wsSubs: 10000, wsBroadcastRounds: 5}
}

func quickOptions() options {
	return options{quick: true, rounds: 1, dur: 2 * time.Second, warm: time.Second, abN: 500, abWarm: 100,
		h2N: 10000, h2Warm: 1000, idlePlain: 2000, idleTLS: 1000, cpuN: 500, silent: 1000,
		rate: 5000, rateDur: 3 * time.Second, rateWarm: time.Second,
		wsIdle: 2000, wsEchoConns: 200, wsEchoDur: 2 * time.Second, wsSubs: 1000, wsBroadcastRounds: 3}
}

// metric is one column of a workload's table.
type metric struct {
	key, label string
	decimals   int
}

// outcome is what one measurement of one server gave.
type outcome struct {
	values map[string]float64
	na     string // not applicable, and why
	err    error
	note   string // caveat worth printing next to the figure
}

// env is what a measurement needs besides the server.
type env struct {
	ctx               context.Context
	o                 options
	binDir            string
	certFile, keyFile string
	luaFile           string
	scratch           string // rendered C server configs go here
	staticDir         string // holds staticFile, served at /static/ in the static workload
	logPath           string // tool output of this measurement is appended here
}

func (e *env) bin(name string) string { return filepath.Join(e.binDir, name) }

// workload is one benchmark: how to drive a running server and which
// figures it yields.
type workload struct {
	name, title string
	tool        string   // external tool it needs ("" none)
	helper      string   // own binary it needs ("" none)
	tls         bool     // start servers with their HTTPS listener
	variants    []string // variant rows that take part
	rows        []string // when set, exactly these rows take part (variants included)
	noCeiling   string   // why gnetbare does not take part ("" it does)
	noH2        bool     // HTTP/2 workload: gnetbare cannot
	static      bool     // servers get -static-dir (C rows: a /static/ location)
	metrics     []metric
	primary     string // key of the figure ratios are taken of
	higher      bool   // higher primary is better
	note        string // one line under the title in the report
	commands    func(o options) []string
	run         func(e *env, s *server) outcome
}

// Placeholders used in the report's command lines.
const (
	plainPH = "127.0.0.1:PORT"
	tlsPH   = "127.0.0.1:TLSPORT"
)

var (
	inlineVariant     = []string{"gwist-inline"}
	noQuickAckVariant = []string{"gwist-noquickack"}
	// crefRows are the C reference rows (nginx, h2o).
	crefRows = []string{"nginx", "h2o"}
)

// allWorkloads lists the workloads in run order.
func allWorkloads() []workload {
	return []workload{
		withCRef(wrkWorkload("plaintext", "Plaintext keep-alive, GET /", "/", false, false)),
		withCRef(wrkWorkload("json", "JSON keep-alive, GET /json", "/json", false, false)),
		wrkWorkload("pipelined", "Pipelined, 16 GET / per batch", "/", true, false),
		withCRef(wrkWorkload("https", "HTTPS keep-alive, GET /", "/", false, true)),
		withCRef(staticWorkload()),
		withCRef(churnWorkload(8, false)),
		withCRef(churnWorkload(1, false)),
		withCRef(churnWorkload(8, true)),
		withCRef(churnWorkload(1, true)),
		abWorkload(),
		withCRef(h2Workload(true)),
		withCRef(h2Workload(false)),
		withCRef(idleWorkload(false)),
		withCRef(idleWorkload(true)),
		idleH2Workload(),
		idleSSEWorkload(),
		withCRef(cpuWorkload()),
		withCRef(acceptTailWorkload()),
		silentWorkload(),
		rateWorkload(),
		wsIdleWorkload(),
		wsEchoWorkload(),
		wsBroadcastWorkload(),
		grpcWorkload(false),
		grpcWorkload(true),
	}
}

func secs(d time.Duration) string {
	return strconv.Itoa(max(1, int(d.Round(time.Second).Seconds()))) + "s"
}

// withCRef lets the C reference rows (nginx, h2o) take part in w.
func withCRef(w workload) workload {
	w.variants = append(append([]string(nil), w.variants...), crefRows...)
	return w
}

// staticFile is the file of the static workload: 1 MiB of random bytes.
const (
	staticFile = "file.bin"
	staticSize = 1 << 20
)

// staticWorkload: wrk on one 1 MiB file, served from disk (-static-dir;
// nginx and h2o from the same directory, nginx with sendfile).
func staticWorkload() workload {
	w := wrkWorkload("static", "Static file, 1 MiB, keep-alive GET /static/"+staticFile, "/static/"+staticFile, false, false)
	w.static = true
	w.noCeiling = "canned response, no files"
	w.note = "Every server serves the same 1 MiB file of random bytes from the same directory (Go rows: -static-dir; servers without the flag are n/a). " + cpuSplitNote
	return w
}
