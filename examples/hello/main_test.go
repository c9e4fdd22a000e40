package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

func startHello(t *testing.T, opts ...gwist.Option) string {
	t.Helper()
	return startHelloWith(t, false, opts...)
}

// startHelloWith starts the example's routes; inline must say whether
// opts include WithInline(true), as main's -inline flag does.
func startHelloWith(t *testing.T, inline bool, opts ...gwist.Option) string {
	t.Helper()
	app := gwist.New(opts...)
	routes(app)
	static(app, "")
	debugRoutes(app, inline)
	addr := testkit.Serve(t, func() (net.Addr, error) { return app.Start("127.0.0.1:0") }, app.Shutdown)
	return "http://" + addr
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
	base := startHelloWith(t, true, gwist.WithInline(true))
	for _, path := range []string{"/events", "/download?bytes=5", "/debug/pprof/profile?seconds=1", "/debug/pprof/trace?seconds=1"} {
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

// GET /static/*filepath serves examples/hello/public: embedded by default,
// from disk with -static-dir; with an ETag that revalidates to a 304, a
// HEAD with the length, ranges, and no way out of the directory.
func TestStatic(t *testing.T) {
	want, err := os.ReadFile("public/hello.txt")
	if err != nil {
		t.Fatal(err)
	}
	disk := gwist.New()
	routes(disk)
	static(disk, "public")
	addr, err := disk.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = disk.Shutdown(context.Background()) })
	for _, base := range []string{startHello(t), startHello(t, gwist.WithInline(true)), "http://" + addr.String()} {
		resp, body := fetch(t, base+"/static/hello.txt")
		etag := resp.Header.Get("ETag")
		if resp.StatusCode != 200 || body != string(want) || etag == "" ||
			resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Fatalf("%s: %d %q %v", base, resp.StatusCode, body, resp.Header)
		}
		for _, h := range [][2]string{{"If-None-Match", etag}, {"Range", "bytes=0-4"}} {
			req, _ := http.NewRequest("GET", base+"/static/hello.txt", nil)
			req.Header.Set(h[0], h[1])
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if h[0] == "Range" && (resp.StatusCode != 206 || string(b) != string(want[:5])) ||
				h[0] != "Range" && (resp.StatusCode != 304 || len(b) != 0) {
				t.Errorf("%s %s: %d %q", base, h[0], resp.StatusCode, b)
			}
		}
		resp, err := http.Head(base + "/static/hello.txt")
		if err != nil || resp.StatusCode != 200 || resp.ContentLength != int64(len(want)) {
			t.Errorf("HEAD: %v %v", err, resp)
		}
		if resp, _ := fetch(t, base+"/static/nope.txt"); resp.StatusCode != 404 {
			t.Errorf("missing: %d", resp.StatusCode)
		}
		if resp, _ := fetch(t, base+"/static/%2e%2e/main.go"); resp.StatusCode != 400 {
			t.Errorf("dot-dot: %d", resp.StatusCode)
		}
	}
	http.DefaultClient.CloseIdleConnections()
}
