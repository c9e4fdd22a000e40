package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gwist/gwist/benchmarks/internal/parse"
	"github.com/gwist/gwist/benchmarks/internal/stats"
)

// deliveries records when each subscriber received the k-th broadcast.
type deliveries struct {
	mu    sync.Mutex
	at    [][]time.Duration // per broadcast
	count []atomic.Int64    // per broadcast
	bad   atomic.Int64      // messages of the wrong size
}

func (d *deliveries) add(k int, at time.Duration) {
	if k >= len(d.at) {
		return
	}
	d.mu.Lock()
	d.at[k] = append(d.at[k], at)
	d.mu.Unlock()
	d.count[k].Add(1)
}

// runBroadcast subscribes c.n connections, then does one warm-up and
// c.rounds measured POST /broadcast?bytes=SIZE, each timed from just
// before the POST to the last subscriber's delivery.
func runBroadcast(c config) (parse.WSBench, error) {
	res := parse.WSBench{Mode: "broadcast", Addr: c.addr, Path: c.path, Requested: c.n}
	d, err := openConns(c, c.n)
	if err != nil {
		return res, err
	}
	defer closeAll(d.conns)
	res.Open, res.Sources, res.OpenSeconds, res.Errors, res.StatusNot101 = len(d.conns), d.sources, d.seconds, d.errors, d.status
	if res.Open == 0 {
		return res, nil
	}
	logf("broadcast: %d of %d subscribed in %.1f s", res.Open, c.n, d.seconds)
	total := c.rounds + 1
	dl := &deliveries{at: make([][]time.Duration, total), count: make([]atomic.Int64, total)}
	var loops []*loop
	var wg sync.WaitGroup
	for _, share := range split(d.conns, c.workers) {
		l, err := newLoop(share, func(lc *loopConn, size int, at time.Duration) {
			if size != c.size {
				dl.bad.Add(1)
				return
			}
			lc.got++
			dl.add(lc.got-1, at)
		})
		if err != nil {
			return res, err
		}
		defer l.close()
		loops = append(loops, l)
		wg.Go(l.run)
	}
	defer func() {
		for _, l := range loops {
			l.stop.Store(true)
		}
		wg.Wait()
	}()
	// Let the server finish registering the last subscribers.
	time.Sleep(500 * time.Millisecond)
	url := "http://" + c.addr + "/broadcast?bytes=" + strconv.Itoa(c.size)
	client := &http.Client{Timeout: c.timeout}
	for k := range total {
		cpu0 := serverCPU(c.pid)
		r, err := broadcastOnce(client, url, dl, k, res.Open, c.timeout)
		if cpu1 := serverCPU(c.pid); cpu0 >= 0 && cpu1 >= 0 {
			r.ServerCPUMs = ms(cpu1 - cpu0)
		}
		if err != nil {
			return res, fmt.Errorf("broadcast %d: %w", k, err)
		}
		logf("broadcast %d: POST %.1f ms, p50 %.1f ms, last %.1f ms, %d of %d delivered (server sent %d), server CPU %.0f ms",
			k, r.PostMs, r.P50Ms, r.LastMs, r.Delivered, res.Open, r.Sent, r.ServerCPUMs)
		if k > 0 {
			res.Rounds = append(res.Rounds, r)
		}
		time.Sleep(200 * time.Millisecond)
	}
	var last, p50, post, cpu []float64
	for _, r := range res.Rounds {
		last, p50, post, cpu = append(last, r.LastMs), append(p50, r.P50Ms), append(post, r.PostMs), append(cpu, r.ServerCPUMs)
	}
	res.MedianLastMs, res.MedianP50Ms, res.MedianPostMs = stats.Median(last), stats.Median(p50), stats.Median(post)
	if c.pid > 0 {
		res.MedianServerCPUMs = stats.Median(cpu)
	}
	if n := dl.bad.Load(); n > 0 {
		res.Errors["wrong-size"] = n
	}
	for _, l := range loops {
		if n := l.dropped.Load(); n > 0 {
			res.Errors["dropped"] += n
		}
	}
	return res, nil
}

// broadcastOnce POSTs the k-th broadcast and waits until want subscribers
// have it (or timeout passes).
func broadcastOnce(client *http.Client, url string, dl *deliveries, k, want int, timeout time.Duration) (parse.BroadcastRound, error) {
	var r parse.BroadcastRound
	t0 := now()
	resp, err := client.Post(url, "text/plain", nil)
	if err != nil {
		return r, err
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	resp.Body.Close()
	r.PostMs = ms(now() - t0)
	if resp.StatusCode != http.StatusOK {
		return r, fmt.Errorf("POST answered %d: %s", resp.StatusCode, body)
	}
	var dropped int
	if _, err := fmt.Sscanf(string(body), "sent %d dropped %d", &r.Sent, &dropped); err != nil {
		return r, fmt.Errorf("POST answered %q, want \"sent N dropped M\"", body)
	}
	deadline := time.Now().Add(timeout)
	for dl.count[k].Load() < int64(want) && time.Now().Before(deadline) {
		time.Sleep(200 * time.Microsecond)
	}
	dl.mu.Lock()
	at := slices.Clone(dl.at[k])
	dl.mu.Unlock()
	r.Delivered = len(at)
	if len(at) == 0 {
		return r, fmt.Errorf("no subscriber received it within %s", timeout)
	}
	slices.Sort(at)
	r.LastMs = ms(at[len(at)-1] - t0)
	r.P50Ms = ms(stats.Rank(at, 0.5) - t0)
	return r, nil
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
