package main

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/gwist/gwist/benchmarks/internal/parse"
	"github.com/gwist/gwist/benchmarks/internal/wsclient"
)

// idleWarm connections are opened and closed before the RSS baseline, so
// that one-time costs (pools, the first goroutines, lazily built tables)
// are not charged to the measured connections.
const idleWarm = 200

// runIdle opens c.n connections and holds them, each upgraded and silent,
// with no goroutine on this side; reads the server's RSS before and after;
// then checks a sample with one echo each.
func runIdle(c config) (parse.WSBench, error) {
	res := parse.WSBench{Mode: "idle", Addr: c.addr, Path: c.path, Requested: c.n}
	warm, err := openConns(c, min(idleWarm, c.n))
	if err != nil {
		return res, err
	}
	closeAll(warm.conns)
	if len(warm.conns) == 0 {
		res.Errors, res.StatusNot101 = warm.errors, warm.status
		return res, nil
	}
	time.Sleep(500 * time.Millisecond)
	if c.pid > 0 {
		if res.RSSBefore, err = rssBytes(c.pid); err != nil {
			return res, err
		}
	}
	d, err := openConns(c, c.n)
	if err != nil {
		return res, err
	}
	defer closeAll(d.conns)
	res.Open, res.Sources, res.OpenSeconds, res.Errors, res.StatusNot101 = len(d.conns), d.sources, d.seconds, d.errors, d.status
	logf("idle: %d of %d open in %.1f s over %d source addresses", res.Open, c.n, d.seconds, d.sources)
	time.Sleep(c.settle)
	if c.pid > 0 && res.Open > 0 {
		if res.RSSAfter, err = rssBytes(c.pid); err != nil {
			return res, err
		}
		res.BytesPerConn = float64(res.RSSAfter-res.RSSBefore) / float64(res.Open)
	}
	res.Checked, res.CheckFailed = checkSample(d.conns, c.check, c.timeout)
	if c.hold > 0 {
		line, _ := json.Marshal(res)
		fmt.Println(string(line))
		logf("idle: holding the connections for %s", c.hold)
		time.Sleep(c.hold)
	}
	return res, nil
}

// checkSample does one echo on k connections spread evenly over conns
// (all of them when k is 0 or more than there are) and returns how many it
// checked and how many failed.
func checkSample(conns []*wsConn, k int, timeout time.Duration) (checked, failed int) {
	if k <= 0 || k > len(conns) {
		k = len(conns)
	}
	msg := []byte("alive?")
	for i := range k {
		wc := conns[i*len(conns)/k]
		checked++
		if err := wsclient.RoundTrip(wc.fd, msg, wc.buf, timeout); err != nil {
			if failed == 0 {
				logf("check: %v", err)
			}
			failed++
		}
	}
	if failed > 0 {
		logf("check: %d of %d failed", failed, checked)
	}
	return checked, failed
}
