package engine

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/testkit"
)

// startOnGroup starts a server with cfg on g answering body.
func startOnGroup(t *testing.T, g *LoopGroup, cfg Config, h Handler) (*Server, string) {
	t.Helper()
	cfg.Group = g
	s, err := NewServer(cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := s.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return s, addr.String()
}

func answer(body string) Handler {
	return func(ex *Exchange) { ex.Body = append(ex.Body, body...) }
}

func shutdown(t *testing.T, s *Server, d time.Duration) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return s.Shutdown(ctx)
}

// get does one GET / on its own connection and returns the body.
func get(t *testing.T, addr string) string {
	t.Helper()
	tr := testkit.H1(nil)
	tr.DisableKeepAlives = true
	resp, err := testkit.Client(t, tr).Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("GET %s: %v", addr, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Two servers on one LoopGroup run on the same gnet loops; each serves its
// own handler, one can stop while the other serves, and the loops stop
// with the last.
func TestLoopGroupSharedByServers(t *testing.T) {
	g := NewLoopGroup()
	s1, a1 := startOnGroup(t, g, Config{Inline: true, Loops: 1}, answer("one"))
	s2, a2 := startOnGroup(t, g, Config{Inline: true, Loops: 1}, answer("two"))
	if s1.cli != s2.cli || s1.cli == nil {
		t.Fatalf("servers of one group run on different loops (%p, %p)", s1.cli, s2.cli)
	}
	if got := get(t, a1); got != "one" {
		t.Fatalf("first server answered %q", got)
	}
	if got := get(t, a2); got != "two" {
		t.Fatalf("second server answered %q", got)
	}
	if err := shutdown(t, s1, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if g.cli == nil {
		t.Fatal("the loops stopped with the first of two servers")
	}
	if got := get(t, a2); got != "two" {
		t.Fatalf("after the first server's shutdown the second answered %q", got)
	}
	if c, err := net.DialTimeout("tcp", a1, time.Second); err == nil {
		c.Close()
		t.Fatal("the stopped server still accepts")
	}
	if err := shutdown(t, s2, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if g.cli != nil || g.users != 0 {
		t.Fatalf("the loops outlived their last server (users %d)", g.users)
	}
}

// A drain cut by its deadline closes its own server's connections on the
// shared loops (no loop stops for it) and leaves the other server's alone.
func TestLoopGroupCutDrainClosesOnlyItsOwn(t *testing.T) {
	w, err := NewWorkers(4)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release(5 * time.Second)
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{}, 1)
	g := NewLoopGroup()
	s1, a1 := startOnGroup(t, g, Config{Workers: w, Loops: 1}, func(ex *Exchange) {
		started <- struct{}{}
		<-release
	})
	s2, a2 := startOnGroup(t, g, Config{Workers: w, Loops: 1}, answer("two"))
	defer shutdown(t, s2, 5*time.Second)

	// A keep-alive connection to the second server, used once.
	other, err := net.Dial("tcp", a2)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	otherR := bufio.NewReader(other)
	roundTrip := func() string {
		t.Helper()
		_ = other.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := other.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(otherR, nil)
		if err != nil {
			t.Fatalf("the other server's connection: %v", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return string(b)
	}
	if got := roundTrip(); got != "two" {
		t.Fatalf("the other server answered %q", got)
	}

	// A request to the first server whose handler never returns.
	hung, err := net.Dial("tcp", a1)
	if err != nil {
		t.Fatal(err)
	}
	defer hung.Close()
	if _, err := hung.Write([]byte("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler did not start")
	}
	if err := shutdown(t, s1, 200*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v, want the deadline", err)
	}
	_ = hung.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, err := io.ReadAll(hung)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the cut server's connection is still open on the shared loop")
	}
	if strings.Contains(string(b), "HTTP/1.1 200") {
		t.Fatalf("the hung request was answered: %q", b)
	}
	if got := roundTrip(); got != "two" {
		t.Fatalf("after the other's cut drain the server answered %q", got)
	}
}
