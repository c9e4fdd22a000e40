package main

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func newTLSServer(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "https://")
}

func TestOnceReadsWholeResponse(t *testing.T) {
	addr := newTLSServer(t, func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Repeat("x", 10000))
	})
	c := newClient(addr, "/", false, 5*time.Second, &tls.Config{InsecureSkipVerify: true})
	s, err := c.once(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.handshake <= 0 || s.request <= 0 || s.total < s.connect+s.handshake+s.request {
		t.Fatalf("timings %+v", s)
	}
}

func TestOnceErrorKinds(t *testing.T) {
	addr := newTLSServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusTeapot)
	})
	cfg := &tls.Config{InsecureSkipVerify: true}
	_, err := newClient(addr, "/", true, 5*time.Second, cfg).once(context.Background())
	if ce, ok := err.(*connErr); !ok || ce.kind != "status" {
		t.Fatalf("418: err = %v, want kind status", err)
	}
	_, err = newClient(addr, "/", true, 5*time.Second, &tls.Config{}).once(context.Background())
	if ce, ok := err.(*connErr); !ok || ce.kind != "handshake" {
		t.Fatalf("unverifiable cert: err = %v, want kind handshake", err)
	}
	_, err = newClient("127.0.0.1:1", "/", true, time.Second, cfg).once(context.Background())
	if ce, ok := err.(*connErr); !ok || ce.kind != "dial" {
		t.Fatalf("closed port: err = %v, want kind dial", err)
	}
}

func TestRunLoadCountAndResume(t *testing.T) {
	addr := newTLSServer(t, func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	c := config{addr: addr, path: "/", clients: 3, count: 20, timeout: 5 * time.Second, resume: true, insecure: true}
	cfg, err := tlsConfig(c)
	if err != nil {
		t.Fatal(err)
	}
	res := runLoad(context.Background(), c, cfg)
	if res.Connections != 20 || res.ErrorCount() != 0 {
		t.Fatalf("connections %d errors %v", res.Connections, res.Errors)
	}
	if res.Resumed == 0 {
		t.Fatal("-resume: no session was resumed")
	}
	if res.Handshake.Count != 20 || res.Total.P50 <= 0 || res.ConnsPerSec <= 0 {
		t.Fatalf("summary %+v", res)
	}
}
