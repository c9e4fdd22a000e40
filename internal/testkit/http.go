package testkit

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"testing"
	"time"
)

// Serve starts a server with start (an App's Start or StartTLS on
// "127.0.0.1:0") and stops it with shutdown when the test ends, failing
// the test if either fails (a shutdown gets 5 s). It returns the address
// served, "127.0.0.1:PORT".
//
//	addr := testkit.Serve(t, func() (net.Addr, error) { return app.Start("127.0.0.1:0") }, app.Shutdown)
func Serve(t testing.TB, start func() (net.Addr, error), shutdown func(context.Context) error) string {
	t.Helper()
	addr, err := start()
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return addr.String()
}

// Client is an http.Client over tr whose idle connections are closed when
// the test ends, so that no client goroutine outlives it. It does not
// follow redirects (a test sees the 3xx), does not ask for compression and
// gives up on a request after 20 s.
func Client(t testing.TB, tr *http.Transport) *http.Client {
	tr.DisableCompression = true
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{
		Transport:     tr,
		Timeout:       20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// H1 is a transport for HTTP/1.1, over TLS with cfg when cfg is not nil
// (ALPN http/1.1 unless cfg offers other protocols).
func H1(cfg *tls.Config) *http.Transport {
	if cfg != nil && len(cfg.NextProtos) == 0 {
		cfg = cfg.Clone()
		cfg.NextProtos = []string{"http/1.1"}
	}
	return &http.Transport{TLSClientConfig: cfg}
}

// H2 is a transport for HTTP/2 over TLS with cfg (ALPN h2).
func H2(cfg *tls.Config) *http.Transport {
	return &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true}
}

// H2C is a transport for HTTP/2 over plaintext by prior knowledge (h2c).
func H2C() *http.Transport {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return &http.Transport{Protocols: p}
}
