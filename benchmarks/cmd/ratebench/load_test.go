package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestRunLoadKeepsTheRate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	c := config{addr: strings.TrimPrefix(srv.URL, "http://"), path: "/", rate: 400, conns: 4,
		duration: 500 * time.Millisecond, warmup: 100 * time.Millisecond, timeout: 5 * time.Second}
	res := runLoad(context.Background(), c)
	// 400 req/s over 0.5 s is 200 scheduled requests; all must complete.
	if res.Completed != 200 || res.ErrorCount() != 0 {
		t.Fatalf("completed %d, errors %v", res.Completed, res.Errors)
	}
	if res.Latency.Count != 200 || res.Latency.P50 <= 0 || res.Latency.P999 < res.Latency.P50 {
		t.Fatalf("latency %+v", res.Latency)
	}
}

func TestStallIsChargedToLaterRequests(t *testing.T) {
	// A server that stalls once for 200 ms: with open-loop accounting the
	// requests scheduled during the stall see it too, so more than one
	// sample is far above the normal latency.
	stalled := make(chan struct{}, 1)
	stalled <- struct{}{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stalled:
			time.Sleep(200 * time.Millisecond)
		default:
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	c := config{addr: strings.TrimPrefix(srv.URL, "http://"), path: "/", rate: 100, conns: 1,
		duration: 600 * time.Millisecond, timeout: 5 * time.Second}
	res := runLoad(context.Background(), c)
	if res.Completed != 60 {
		t.Fatalf("completed %d, want 60", res.Completed)
	}
	// 100 req/s on one connection: ~20 requests were due during the stall.
	if res.Latency.P90 < 50 {
		t.Fatalf("p90 %.1f ms: the stall was not charged to the delayed requests", res.Latency.P90)
	}
}
