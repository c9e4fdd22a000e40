package gwist_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// Shutdown closes the listener first: while a request is still in flight,
// new connections are refused by the kernel, not accepted and dropped.
func TestShutdownRefusesNewConnectionsAtOnce(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()))
	started, release := make(chan struct{}), make(chan struct{})
	app.GET("/block", func(c *gwist.Ctx) error {
		close(started)
		<-release
		return c.String(200, "done")
	})
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	inflight := dialRaw(t, addr.String())
	inflight.send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
	<-started

	done := make(chan error, 1)
	begun := time.Now()
	go func() { done <- app.Shutdown(context.Background()) }()
	waitRefused(t, addr.String())
	t.Logf("refused %v after Shutdown began", time.Since(begun))

	close(release)
	inflight.expectLastResponse("done")
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
}

// A keep-alive client whose next request follows its last response by a
// moment (here: the time to see the listener closed) gets it answered, with
// Connection: close, instead of crossing the close of its "idle" connection
// on the wire (engine/drain.go: drainIdleGrace).
func TestShutdownAnswersKeepAliveClientsNextRequest(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		app := gwist.New(gwist.WithInline(inline), gwist.WithLogger(discardLogger()))
		app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "hello") })
		addr, err := app.Start("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		client := dialRaw(t, addr.String())
		client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp, _ := client.readResponse("GET"); resp.StatusCode != 200 || resp.Close {
			t.Fatalf("first request: %d close=%v", resp.StatusCode, resp.Close)
		}
		done := make(chan error, 1)
		go func() { done <- app.Shutdown(context.Background()) }()
		waitRefused(t, addr.String())
		client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		// The listener closes a moment before responses start saying
		// Connection: close (engine Shutdown): a request in that moment is
		// answered with keep-alive, and the next one gets the close.
		if resp, body := client.readResponse("GET"); resp.StatusCode != 200 || body != "hello" {
			t.Fatalf("response during the drain: %d %q", resp.StatusCode, body)
		} else if !resp.Close {
			client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
			client.expectLastResponse("hello")
		} else {
			client.expectClosed()
		}
		if err := <-done; err != nil {
			t.Fatalf("Shutdown: %v", err)
		}
	})
}

// An idle server, even with idle keep-alive connections on a plaintext and
// a TLS listener, shuts down promptly. (The example server's exit after
// SIGTERM is measured in the closing note; this bound is wide for CI.)
func TestShutdownIdleIsPrompt(t *testing.T) {
	app := helloApp(gwist.WithLogger(discardLogger()))
	plain, err := app.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tlsAddr, err := app.StartTLS("127.0.0.1:0", serverTLSConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	pc := newClient(t)
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: getPKI(t).pool}}
	t.Cleanup(tr.CloseIdleConnections)
	tc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for range 4 {
		get(t, pc, "http://"+plain.String()+"/")
		get(t, tc, "https://"+tlsAddr.String()+"/")
	}
	begun := time.Now()
	if err := app.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(begun); d > 250*time.Millisecond {
		t.Fatalf("idle Shutdown took %v", d)
	} else {
		t.Logf("idle Shutdown took %v", d)
	}
	if _, err := pc.Get("http://" + plain.String() + "/"); err == nil {
		t.Fatal("served after Shutdown")
	}
}

// waitRefused waits until a dial to addr is refused, as it is once
// Shutdown has closed the listener.
func waitRefused(t *testing.T, addr string) {
	t.Helper()
	waitFor(t, time.Second, "a dial to be refused during the drain", func() bool {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return false
		}
		// Refused, or reset when the SYN raced the close into the backlog.
		if !errors.Is(err, syscall.ECONNREFUSED) && !errors.Is(err, syscall.ECONNRESET) {
			t.Fatalf("dial during drain: %v; want connection refused", err)
		}
		return true
	})
}

// expectLastResponse reads a 200 with body want and Connection: close to a
// GET, then the close.
func (r *rawConn) expectLastResponse(want string) {
	r.t.Helper()
	resp, body := r.readResponse("GET")
	if resp.StatusCode != 200 || body != want || !resp.Close {
		r.t.Fatalf("response: %d %q close=%v; want 200 %q with Connection: close", resp.StatusCode, body, resp.Close, want)
	}
	r.expectClosed()
}
