package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

func startHello(t *testing.T, opts ...gwist.Option) string {
	t.Helper()
	app := gwist.New(opts...)
	routes(app)
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := app.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return "http://" + addr.String()
}

func fetch(t *testing.T, url string) (*http.Response, string) {
	t.Helper()
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

func TestEvents(t *testing.T) {
	resp, body := fetch(t, startHello(t)+"/events?n=3&ms=10")
	if want := "id: 1\ndata: 1\n\nid: 2\ndata: 2\n\nid: 3\ndata: 3\n\n"; body != want ||
		resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%q %v", body, resp.Header)
	}
}

func TestDownload(t *testing.T) {
	base := startHello(t)
	const n = 5<<20 + 3
	resp, body := fetch(t, base+"/download?bytes=5242883")
	if resp.ContentLength != n || len(body) != n || strings.Trim(body, "abcdefghijklmnopqrstuvwxyz") != "" {
		t.Fatalf("length %d, %d bytes", resp.ContentLength, len(body))
	}
	if resp, _ := fetch(t, base+"/download?bytes=-1"); resp.StatusCode != 400 {
		t.Fatalf("bytes=-1: %d", resp.StatusCode)
	}
}

// Inline, the streaming routes say they need the worker pool.
func TestStreamingRoutesInline(t *testing.T) {
	base := startHello(t, gwist.WithInline(true))
	for _, path := range []string{"/events", "/download?bytes=5"} {
		if resp, body := fetch(t, base+path); resp.StatusCode != 501 {
			t.Fatalf("%s: %d %q", path, resp.StatusCode, body)
		}
	}
}
