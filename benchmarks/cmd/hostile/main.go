// Command hostile runs the hostile clients of issue 21 (internal/hostile)
// against a running server, with a live client beside them and the
// server's RSS sampled, and prints one result table.
//
//	hostile -attack ping-flood|ping-flood-read|ws-noread|h2-stall|all
//	    -target 127.0.0.1:PORT -pid PID [-duration 20s] [-after 60s]
//	    [-conns N] [-streams 100] [-messages 16] [-size 65536] ...
//
// Attacks:
//
//	ping-flood       -conns (1) WebSocket connections to -ws-path send
//	                 masked pings as fast as the socket takes them and
//	                 never read
//	ping-flood-read  the same, reading (and dropping) the pongs, at most
//	                 -read-rate MiB/s (0: as fast as it can)
//	ws-noread        -conns (2000) connections each send -messages (16)
//	                 binary messages of -size (64 KiB) to the echo route
//	                 and never read the echoes
//	h2-stall         -conns (11) h2c connections each open -streams (100)
//	                 POST streams to -upload-path, send -chunk (1 KiB) of
//	                 the body, then nothing
//	all              the four at once (a comma-separated list runs the
//	                 named ones at once)
//
// For -duration the attack runs and, from -probe-delay (2 s) on, once the
// attack's connections are set up, the live client GETs -probe-path every
// -probe-interval (10 ms) on a keep-alive connection, from a process of
// its own (this command again), so that the attackers' goroutines cannot
// delay it. With -pid, the server's CPU time is sampled, and the live
// client's requests are summed up apart for the attack's opening burst and
// for the steady attack after it: the burst ends at the first
// -quiet-window (300 ms) in which the server used less than -quiet-cores
// (0.5) of CPU, after the ws-noread peers stopped pushing (with no
// ws-noread, from the attack's start). Then the
// attack's connections are closed and the RSS of -pid is watched for
// -after (60 s; -after-early stops once the anonymous RSS, RssAnon, is
// back within 20 % of before). Should the RSS pass -rss-limit (6 GiB) the attack is stopped
// early (the table says so). With -json the results follow the table as
// one JSON object.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/gwist/gwist/internal/hostile"
)

// The attacks, as -attack names them.
const (
	attackPing     = "ping-flood"
	attackPingRead = "ping-flood-read"
	attackNoRead   = "ws-noread"
	attackH2Stall  = "h2-stall"
)

var allAttacks = []string{attackPing, attackPingRead, attackNoRead, attackH2Stall}

type config struct {
	attacks       []string
	target        string
	pid           int
	duration      time.Duration
	after         time.Duration
	afterEarly    bool
	conns         int
	streams       int
	messages      int
	size          int
	pingSize      int
	readRate      int64
	chunk         int
	blockTimeout  time.Duration
	dialParallel  int
	wsPath        string
	uploadPath    string
	probePath     string
	probeInterval time.Duration
	probeDelay    time.Duration
	probeTimeout  time.Duration
	quietWindow   time.Duration
	quietCores    float64
	rssLimit      int64
	json          bool
}

func main() {
	// This command is also its own live client (see run).
	if ok, err := hostile.ServeLiveProbeChild(os.Stdout); ok {
		if err != nil {
			fmt.Fprintf(os.Stderr, "hostile: live client: %v\n", err)
			os.Exit(1)
		}
		return
	}
	var c config
	attack := flag.String("attack", "", "ping-flood, ping-flood-read, ws-noread, h2-stall, all, or a comma-separated list (run at once)")
	flag.StringVar(&c.target, "target", "127.0.0.1:8080", "server host:port")
	flag.IntVar(&c.pid, "pid", 0, "server process id, for its RSS (0: no RSS)")
	flag.DurationVar(&c.duration, "duration", 20*time.Second, "how long the attack (and the live client) runs")
	flag.DurationVar(&c.after, "after", 60*time.Second, "how long RSS is watched after the attack")
	flag.BoolVar(&c.afterEarly, "after-early", false, "stop watching once the anonymous RSS is back within 20% of before")
	flag.IntVar(&c.conns, "conns", 0, "attack connections (0: ping-flood 1, ws-noread 2000, h2-stall 11)")
	flag.IntVar(&c.streams, "streams", 100, "h2-stall: POST streams per connection")
	flag.IntVar(&c.messages, "messages", 16, "ws-noread: messages per connection")
	flag.IntVar(&c.size, "size", 64<<10, "ws-noread: bytes per message")
	flag.IntVar(&c.pingSize, "ping-size", 125, "ping-flood: bytes per ping payload (at most 125)")
	readRateMB := flag.Float64("read-rate", 0, "ping-flood-read: read at most this many MiB/s (0: as fast as it can)")
	flag.IntVar(&c.chunk, "chunk", 1<<10, "h2-stall: body bytes each stream sends before it stalls")
	flag.DurationVar(&c.blockTimeout, "block-timeout", 2*time.Second, "ws-noread: a write without progress this long counts as blocked")
	flag.IntVar(&c.dialParallel, "dial", 64, "ws-noread: connections being opened at once")
	flag.StringVar(&c.wsPath, "ws-path", "/ws", "WebSocket echo route")
	flag.StringVar(&c.uploadPath, "upload-path", "/upload", "h2-stall: upload route")
	flag.StringVar(&c.probePath, "probe-path", "/", "live client: route it GETs")
	flag.DurationVar(&c.probeInterval, "probe-interval", 10*time.Millisecond, "live client: time between requests")
	flag.DurationVar(&c.probeDelay, "probe-delay", 2*time.Second, "live client: start this long after the attack (once its connections are set up)")
	flag.DurationVar(&c.probeTimeout, "probe-timeout", 5*time.Second, "live client: timeout of one request")
	flag.DurationVar(&c.quietWindow, "quiet-window", hostile.BurstQuietWindow, "the opening burst ends at the first window this long in which the server used less than -quiet-cores")
	flag.Float64Var(&c.quietCores, "quiet-cores", hostile.BurstQuietCores, "see -quiet-window")
	rssLimitMB := flag.Int64("rss-limit", 6<<10, "stop the attack when the server's RSS passes this many MiB (0: never)")
	flag.BoolVar(&c.json, "json", false, "print the results as JSON after the table")
	flag.Parse()
	c.rssLimit = *rssLimitMB << 20
	c.readRate = int64(*readRateMB * (1 << 20))
	var err error
	if c.attacks, err = parseAttacks(*attack); err != nil {
		fmt.Fprintf(os.Stderr, "hostile: %v\n", err)
		flag.Usage()
		os.Exit(2)
	}
	rep, err := run(c)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hostile: %v\n", err)
		os.Exit(1)
	}
	rep.print(os.Stdout)
	if c.json {
		b, _ := json.MarshalIndent(rep, "", "  ")
		fmt.Println(string(b))
	}
}

func parseAttacks(s string) ([]string, error) {
	if s == "all" {
		return allAttacks, nil
	}
	var out []string
	for _, a := range strings.Split(s, ",") {
		a = strings.TrimSpace(a)
		ok := false
		for _, k := range allAttacks {
			ok = ok || a == k
		}
		if !ok {
			return nil, fmt.Errorf("unknown attack %q", a)
		}
		out = append(out, a)
	}
	return out, nil
}

// report is everything one run measured.
type report struct {
	Attacks  []string
	Target   string
	PID      int
	Duration time.Duration
	// Stopped says why the attack ended before -duration ("" when it did not).
	Stopped string             `json:",omitempty"`
	RSS     *hostile.RSSResult `json:",omitempty"`
	Probe   hostile.ProbeResult
	// ProbeError says why the live client gave no result.
	ProbeError string `json:",omitempty"`
	// Burst splits the live client's requests at the end of the attack's
	// opening burst (with -pid).
	Burst     *hostile.Burst            `json:",omitempty"`
	Ping      *hostile.PingFloodResult  `json:",omitempty"`
	PingRead  *hostile.PingFloodResult  `json:",omitempty"`
	NoRead    *hostile.NoReadEchoResult `json:",omitempty"`
	H2Stall   *hostile.H2StallResult    `json:",omitempty"`
	AttackEnd time.Duration             // when the attacks had all returned
}

func run(c config) (*report, error) {
	rep := &report{Attacks: c.attacks, Target: c.target, PID: c.pid, Duration: c.duration}
	var rss *hostile.RSSSampler
	var cpu *hostile.CPUSampler
	if c.pid > 0 {
		var err error
		if rss, err = hostile.SampleRSS(c.pid, 100*time.Millisecond); err != nil {
			return nil, err
		}
		if cpu, err = hostile.SampleCPU(c.pid, 50*time.Millisecond); err != nil {
			return nil, err
		}
		defer cpu.Stop()
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.duration)
	defer cancel()
	var stopMu sync.Mutex
	if rss != nil && c.rssLimit > 0 {
		go func() { // the machine is shared: stop an attack that runs away
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				if now := rss.Now(); now.Peak > c.rssLimit {
					stopMu.Lock()
					rep.Stopped = fmt.Sprintf("RSS passed %d MiB at %v", c.rssLimit>>20, now.PeakAt.Round(100*time.Millisecond))
					stopMu.Unlock()
					cancel()
					return
				}
			}
		}()
	}
	start := time.Now()
	var attackStart, probeStart time.Duration // on cpu's clock
	if cpu != nil {
		attackStart = cpu.Since()
	}
	fmt.Fprintf(os.Stderr, "hostile: %s against %s for %v\n", strings.Join(c.attacks, "+"), c.target, c.duration)

	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-ctx.Done():
			return
		case <-time.After(c.probeDelay):
		}
		if cpu != nil {
			probeStart = cpu.Since()
		}
		var err error
		rep.Probe, err = hostile.LiveProbeChild(exec.CommandContext(ctx, self), hostile.ProbeConfig{
			URL: "http://" + c.target + c.probePath, Interval: c.probeInterval, Timeout: c.probeTimeout,
			Duration: c.duration - c.probeDelay})
		if err != nil {
			rep.ProbeError = err.Error()
		}
	})
	conns := func(def int) int {
		if c.conns > 0 {
			return c.conns
		}
		return def
	}
	var attacks sync.WaitGroup
	for _, a := range c.attacks {
		attacks.Add(1)
		go func() {
			defer attacks.Done()
			switch a {
			case attackPing, attackPingRead:
				r := hostile.PingFlood(ctx, hostile.PingFloodConfig{Addr: c.target, Path: c.wsPath, Conns: conns(1),
					PingSize: c.pingSize, ReadPongs: a == attackPingRead, ReadRate: c.readRate})
				if a == attackPing {
					rep.Ping = &r
				} else {
					rep.PingRead = &r
				}
			case attackNoRead:
				r := hostile.NoReadEcho(ctx, hostile.NoReadEchoConfig{Addr: c.target, Path: c.wsPath, Conns: conns(2000),
					Messages: c.messages, Size: c.size, BlockTimeout: c.blockTimeout, DialParallel: c.dialParallel})
				rep.NoRead = &r
			case attackH2Stall:
				r := hostile.H2StalledUploads(ctx, hostile.H2StallConfig{Addr: c.target, Path: c.uploadPath,
					Conns: conns(11), Streams: c.streams, FirstChunk: c.chunk})
				rep.H2Stall = &r
			}
		}()
	}
	attacks.Wait()
	rep.AttackEnd = time.Since(start)
	wg.Wait()
	cancel()
	if cpu != nil && rep.ProbeError == "" {
		var pushEnd time.Duration
		if rep.NoRead != nil {
			pushEnd = rep.NoRead.WritesEndedAt
		}
		b := cpu.SplitAtBurst(rep.Probe, attackStart, probeStart, pushEnd, c.quietWindow, c.quietCores)
		rep.Burst = &b
	}
	rep.Probe.Requests = nil // summed up; too many for the JSON
	if rss != nil {
		rss.MarkEnd()
		fmt.Fprintf(os.Stderr, "hostile: attack over after %v; watching RSS for %v\n", rep.AttackEnd.Round(time.Millisecond), c.after)
		r := rss.WaitAfter(context.Background(), c.after, c.afterEarly)
		rep.RSS = &r
	}
	stopMu.Lock()
	defer stopMu.Unlock()
	return rep, nil
}
