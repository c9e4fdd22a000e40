package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"

	"github.com/gwist/gwist/internal/syncbuf"
	"github.com/gwist/gwist/internal/testkit"
)

// syncBuffer is a log or output sink read while it is written.
type syncBuffer = syncbuf.Buffer

// TestMiddlewareFlag runs the routes as -middleware does and checks each
// piece through a real client: request ID, access log, gzip, CORS
// preflight, and that streaming routes still stream.
func TestMiddlewareFlag(t *testing.T) {
	logs := new(syncBuffer)
	app := gwist.New()
	routes(app)
	useMiddleware(app, slog.New(slog.NewTextHandler(logs, nil)))
	addr := testkit.Serve(t, func() (net.Addr, error) { return app.Start("127.0.0.1:0") }, app.Shutdown)
	url := "http://" + addr
	tr := &http.Transport{DisableCompression: true}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	do := func(method, path string, hdr map[string]string, body string) (*http.Response, []byte) {
		t.Helper()
		req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}

	resp, body := do("GET", "/", nil, "")
	if string(body) != "Hello, World!" || resp.Header.Get("X-Request-ID") == "" {
		t.Fatalf("/: %q %v", body, resp.Header)
	}
	if l := logs.String(); !strings.Contains(l, "msg=request method=GET route=/ path=/ status=200 bytes=13") ||
		!strings.Contains(l, "request_id="+resp.Header.Get("X-Request-ID")) {
		t.Fatalf("access log: %s", l)
	}

	big := `{"items":"` + strings.Repeat("abcdefgh", 2000) + `"}`
	resp, body = do("POST", "/echo", map[string]string{"Content-Type": "application/json", "Accept-Encoding": "gzip"}, big)
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("/echo not compressed: %v", resp.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if plain, err := io.ReadAll(zr); err != nil || string(plain) != big {
		t.Fatalf("gunzip: %v, %d bytes", err, len(plain))
	}

	resp, _ = do("OPTIONS", "/echo", map[string]string{"Origin": corsOrigin, "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "content-type"}, "")
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != corsOrigin ||
		resp.Header.Get("Access-Control-Allow-Headers") != "content-type" {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	resp, _ = do("OPTIONS", "/echo", map[string]string{"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}, "")
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("other origin allowed: %v", resp.Header)
	}

	resp, body = do("GET", "/events?n=3&ms=1", map[string]string{"Accept-Encoding": "gzip"}, "")
	if resp.Header.Get("Content-Encoding") != "" || !strings.Contains(string(body), "data: 3") {
		t.Fatalf("/events: %v %q", resp.Header, body)
	}
}
