package gwist_test

import (
	"crypto/tls"
	"net"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// At the connection cap, a plaintext connection whose request arrives is
// answered "503 Service Unavailable" with Retry-After and closed, not
// reset without a word; one that sends nothing is closed after a second;
// on a TLS listener (no answer without a handshake) it is reset at once.
// The open connections are served throughout.
func TestConnCapShedsWith503(t *testing.T) {
	app := gwist.New(gwist.WithMaxConns(2), gwist.WithLogger(discardLogger()))
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	addr := startApp(t, app)
	tlsAddr := startTLS(t, app, serverTLSConfig(t))
	held := []*rawConn{dialRaw(t, addr), dialRaw(t, addr)}
	waitFor(t, 2*time.Second, "two connections open", func() bool { return app.Stats().Conns == 2 })

	r := dialRaw(t, addr)
	r.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, body := r.readResponse("GET")
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || !resp.Close {
		t.Fatalf("over the cap: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	r.expectClosed()
	r.c.Close()
	// One shed connection waits for its request at a time here (a 64th of
	// the cap, at least one): the next is shed once this one is gone.
	waitFor(t, 2*time.Second, "the shed connection to be gone", func() bool { return app.Stats().Conns == 2 })

	silent := dialRaw(t, addr)
	start := time.Now()
	silent.expectClosed()
	if d := time.Since(start); d < 500*time.Millisecond || d > 3*time.Second {
		t.Fatalf("a silent connection over the cap closed after %v, want about 1 s", d)
	}

	// The reset may even reach the dialer before its connect returns.
	if c, err := net.Dial("tcp", tlsAddr); err == nil {
		defer c.Close()
		tc := tls.Client(c, &tls.Config{InsecureSkipVerify: true})
		_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
		if err := tc.Handshake(); err == nil {
			t.Fatal("TLS handshake over the cap succeeded")
		}
	}

	for _, h := range held {
		h.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp, _ := h.readResponse("GET"); resp.StatusCode != 200 {
			t.Fatalf("an open connection: %d", resp.StatusCode)
		}
	}
	if n := app.Stats().RefusedConns; n != 3 {
		t.Fatalf("RefusedConns = %d, want 3", n)
	}
}
