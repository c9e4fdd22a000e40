package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// /debug/pprof/ is net/http/pprof mounted with gwist.WrapHandler.
func TestPprof(t *testing.T) {
	base := startHello(t)
	resp, body := fetch(t, base+"/debug/pprof/")
	if resp.StatusCode != 200 || !strings.Contains(body, "heap") || !strings.Contains(body, "goroutine") ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("index: %d %q %.300q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	resp, body = fetch(t, base+"/debug/pprof")
	if resp.StatusCode != 200 || !strings.Contains(body, "heap") {
		t.Fatalf("/debug/pprof (redirected): %d %.100q", resp.StatusCode, body)
	}
	resp, body = fetch(t, base+"/debug/pprof/heap?debug=1")
	if resp.StatusCode != 200 || !strings.Contains(body, "heap profile:") {
		t.Fatalf("heap: %d %.200q", resp.StatusCode, body)
	}
	resp, body = fetch(t, base+"/debug/pprof/goroutine?debug=2")
	if resp.StatusCode != 200 || !strings.Contains(body, "goroutine ") {
		t.Fatalf("goroutine: %d %.200q", resp.StatusCode, body)
	}
	resp, body = fetch(t, base+"/debug/pprof/cmdline")
	if resp.StatusCode != 200 || !strings.Contains(body, "hello") {
		t.Fatalf("cmdline: %d %q", resp.StatusCode, body)
	}
	// A one-second CPU profile: a gzipped protobuf.
	resp, body = fetch(t, base+"/debug/pprof/profile?seconds=1")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/octet-stream" {
		t.Fatalf("profile: %d %v %.200q", resp.StatusCode, resp.Header, body)
	}
	zr, err := gzip.NewReader(strings.NewReader(body))
	if err != nil {
		t.Fatalf("profile is not gzip: %v", err)
	}
	if _, err := io.Copy(io.Discard, zr); err != nil {
		t.Fatalf("profile: %v", err)
	}
	resp, _ = fetch(t, base+"/debug/pprof/nosuch")
	if resp.StatusCode != 404 {
		t.Fatalf("unknown profile: %d", resp.StatusCode)
	}

	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed")
	}
	out, err := exec.Command(curl, "-sS", "-f", base+"/debug/pprof/allocs?debug=1").Output()
	if err != nil || !bytes.Contains(out, []byte("heap profile:")) {
		t.Fatalf("curl allocs: %v %.200q", err, out)
	}
}
