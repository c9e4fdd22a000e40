package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/gwist/gwist/benchmarks/internal/serve"
)

// echoed counts the messages the test servers echoed.
var echoed atomic.Int64

// testServer serves /ws (echo, or upgrade and hang up when hangUp is set),
// /ws/sub and POST /broadcast with gorilla/websocket, in this process.
func testServer(t *testing.T, hangUp bool) string {
	t.Helper()
	up := websocket.Upgrader{}
	var mu sync.Mutex
	subs := map[*websocket.Conn]bool{}
	mux := http.NewServeMux()
	mux.HandleFunc(serve.WSPath, func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		if hangUp {
			return
		}
		for {
			mt, m, err := c.ReadMessage()
			if err != nil || c.WriteMessage(mt, m) != nil {
				return
			}
			echoed.Add(1)
		}
	})
	mux.HandleFunc(serve.WSSubPath, func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		mu.Lock()
		subs[c] = true
		mu.Unlock()
		for {
			if _, _, err := c.NextReader(); err != nil {
				break
			}
		}
		mu.Lock()
		delete(subs, c)
		mu.Unlock()
		c.Close()
	})
	mux.HandleFunc(serve.BroadcastPath, func(w http.ResponseWriter, r *http.Request) {
		serve.ServeBroadcast(w, r, func(msg []byte) (sent, dropped int) {
			mu.Lock()
			defer mu.Unlock()
			for c := range subs {
				if c.WriteMessage(websocket.BinaryMessage, msg) == nil {
					sent++
				}
			}
			return sent, 0
		})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

func testConfig(mode, addr string, n int) config {
	c := config{mode: mode, addr: addr, n: n, parallel: 8, workers: 2, pid: os.Getpid(), timeout: 5 * time.Second,
		dur: 300 * time.Millisecond, warm: 100 * time.Millisecond, rounds: 2, settle: 10 * time.Millisecond, sources: 2}
	if err := defaults(&c); err != nil {
		panic(err)
	}
	return c
}

func TestIdleOpensAndChecksEveryConnection(t *testing.T) {
	c := testConfig("idle", testServer(t, false), 300)
	res, err := run(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Open != 300 || res.Checked != 300 || res.CheckFailed != 0 || res.Sources != 2 {
		t.Fatalf("open %d checked %d failed %d sources %d, errors %v", res.Open, res.Checked, res.CheckFailed, res.Sources, res.Errors)
	}
	if res.RSSBefore == 0 || res.RSSAfter == 0 {
		t.Fatalf("RSS not read: %d, %d", res.RSSBefore, res.RSSAfter)
	}
}

func TestIdleCheckCatchesDeadConnections(t *testing.T) {
	c := testConfig("idle", testServer(t, true), 50)
	c.check = 10
	res, err := run(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Open != 50 || res.Checked != 10 || res.CheckFailed != 10 {
		t.Fatalf("open %d checked %d failed %d: the server hung up on every connection", res.Open, res.Checked, res.CheckFailed)
	}
}

func TestIdleReportsRefusedUpgrade(t *testing.T) {
	c := testConfig("idle", testServer(t, false), 20)
	c.path = "/nope"
	res, err := run(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Open != 0 || res.StatusNot101 != 404 || res.Errors["status-404"] == 0 {
		t.Fatalf("open %d status %d errors %v, want 404s", res.Open, res.StatusNot101, res.Errors)
	}
}

func TestEchoCountsRoundTrips(t *testing.T) {
	c := testConfig("echo", testServer(t, false), 20)
	res, err := run(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Open != 20 || res.RoundTrips < 100 || res.Latency.P50 <= 0 || res.ClientCPUPerRT <= 0 || res.ErrorCount() != 0 {
		t.Fatalf("open %d round trips %d p50 %v client µs %v errors %v", res.Open, res.RoundTrips, res.Latency.P50, res.ClientCPUPerRT, res.Errors)
	}
}

// With -burst a round trip is a burst's echoes, all of them: at most a
// quarter of the messages echoed count with a burst of 4 (the warm-up's
// are echoed too), and nothing is dropped.
func TestEchoBurstCountsBursts(t *testing.T) {
	c := testConfig("echo", testServer(t, false), 20)
	c.burst = 4
	before := echoed.Load()
	res, err := run(c)
	if err != nil {
		t.Fatal(err)
	}
	n := echoed.Load() - before
	if res.Open != 20 || res.RoundTrips < 50 || 4*res.RoundTrips > n || res.Latency.P50 <= 0 || res.ErrorCount() != 0 {
		t.Fatalf("open %d round trips %d (messages echoed %d) p50 %v errors %v", res.Open, res.RoundTrips, n, res.Latency.P50, res.Errors)
	}
}

func TestEchoDropsWrongSizedEcho(t *testing.T) {
	// /ws/sub reads and never answers, /broadcast is not WebSocket: use a
	// server that answers every message with a longer one.
	up := websocket.Upgrader{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer c.Close()
		for {
			mt, m, err := c.ReadMessage()
			if err != nil || c.WriteMessage(mt, append(m, '!')) != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c := testConfig("echo", strings.TrimPrefix(srv.URL, "http://"), 5)
	res, err := run(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.RoundTrips != 0 || res.Errors["echo-size"] != 5 {
		t.Fatalf("round trips %d errors %v, want every connection dropped for echo-size", res.RoundTrips, res.Errors)
	}
}

func TestBroadcastReachesEverySubscriber(t *testing.T) {
	c := testConfig("broadcast", testServer(t, false), 200)
	c.size = 1024
	res, err := run(c)
	if err != nil {
		t.Fatal(err)
	}
	if res.Open != 200 || len(res.Rounds) != 2 {
		t.Fatalf("open %d rounds %d", res.Open, len(res.Rounds))
	}
	for i, r := range res.Rounds {
		if r.Sent != 200 || r.Delivered != 200 || r.LastMs <= 0 || r.LastMs < r.P50Ms {
			t.Fatalf("round %d: %+v", i, r)
		}
	}
	if res.MedianLastMs <= 0 {
		t.Fatalf("median %v", res.MedianLastMs)
	}
}
