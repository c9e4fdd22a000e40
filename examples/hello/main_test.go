package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
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

// POST /upload hashes a body far larger than the server's buffers, sent
// with a length and chunked, inline too (the route runs on the pool).
func TestUpload(t *testing.T) {
	const n = 24 << 20
	body := make([]byte, n)
	for i := range body {
		body[i] = byte(i * 7 % 253)
	}
	sum := sha256.Sum256(body)
	want := fmt.Sprintf(`{"bytes":%d,"sha256":"%s"}`+"\n", n, hex.EncodeToString(sum[:]))
	for _, inline := range []bool{false, true} {
		base := startHello(t, gwist.WithInline(inline))
		tr := &http.Transport{}
		t.Cleanup(tr.CloseIdleConnections)
		client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
		for _, chunked := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(body)
			if chunked {
				r = io.MultiReader(r) // hides the length: net/http sends it chunked
			}
			resp, err := client.Post(base+"/upload", "application/octet-stream", r)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || string(got) != want {
				t.Fatalf("inline=%v chunked=%v: %d %q %v", inline, chunked, resp.StatusCode, got, err)
			}
		}
	}
}
