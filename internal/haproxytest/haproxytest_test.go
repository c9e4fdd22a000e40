package haproxytest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestHarness: HAProxy in front of a net/http server, its health check
// seen UP, a request through it, the server seen DOWN once it stops, and a
// runtime API command.
func TestHarness(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "hello from "+r.URL.Path)
	}))
	defer backend.Close()
	hp := Start(t, HTTPDefaults+`
frontend fe
    bind {{.Frontend}}
    default_backend be
backend be
    option httpchk GET /health
    default-server inter 100ms fall 1 rise 1
    server s1 {{.Data}} check
`, strings.TrimPrefix(backend.URL, "http://"))
	hp.WaitServerState(t, "be", "s1", "UP", 5*time.Second)

	resp, err := http.Get("http://" + hp.Frontend + "/x")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "hello from /x" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}

	if out, err := hp.Command("show info"); err != nil || !strings.Contains(out, "Name: HAProxy") {
		t.Fatalf("show info: %v\n%s", err, out)
	}
	backend.Close()
	hp.WaitServerState(t, "be", "s1", "DOWN", 5*time.Second)
	hp.WaitOutput(t, "s1 is DOWN", 5*time.Second)
	hp.Stop()
	hp.Stop() // twice is fine
}

func TestBinary(t *testing.T) {
	if Binary() == "" {
		t.Skip("haproxy is not installed")
	}
	t.Setenv("PATH", "/nonexistent")
	if Binary() == "" {
		t.Fatal("not found outside PATH (in /usr/sbin)")
	}
}
