package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestOpenHoldsConnections(t *testing.T) {
	var reqs atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqs.Add(1)
		io.WriteString(w, "ok")
	}))
	srv.StartTLS()
	defer srv.Close()
	c := config{addr: strings.TrimPrefix(srv.URL, "https://"), path: "/", n: 12, parallel: 4, useTLS: true, timeout: 5 * time.Second}
	conns, res := open(context.Background(), c)
	defer func() {
		for _, nc := range conns {
			nc.Close()
		}
	}()
	if res.Open != 12 || len(conns) != 12 || len(res.Errors) != 0 || reqs.Load() != 12 {
		t.Fatalf("open %d conns %d errors %v requests %d", res.Open, len(conns), res.Errors, reqs.Load())
	}
	// The connections are still usable keep-alive connections.
	if _, err := io.WriteString(conns[0], "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 12)
	if _, err := io.ReadFull(conns[0], buf); err != nil || string(buf) != "HTTP/1.1 200" {
		t.Fatalf("second request on a held connection: %q %v", buf, err)
	}
}

func TestOpenCountsFailures(t *testing.T) {
	c := config{addr: "127.0.0.1:1", path: "/", n: 3, parallel: 2, timeout: time.Second}
	conns, res := open(context.Background(), c)
	if len(conns) != 0 || res.Errors["dial"] != 3 {
		t.Fatalf("conns %d errors %v", len(conns), res.Errors)
	}
}
