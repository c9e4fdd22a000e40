package gwist_test

import (
	"crypto/tls"
	"net/http"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// With HTTP/2 off (WithHTTP2(false)), a user's NextProtos that offers h2
// does not make gwist accept h2 and then answer in HTTP/1.1: ALPN offers
// only what gwist speaks, so Go's client (which asks for h2 first) gets
// HTTP/1.1 and its request works, directly and through
// GetConfigForClient.
func TestTLSNextProtosOnlySpoken(t *testing.T) {
	h2First := serverTLSConfig(t)
	h2First.NextProtos = []string{"h2", "http/1.1"}
	h2Only := serverTLSConfig(t)
	h2Only.NextProtos = []string{"h2"}
	for name, cfg := range map[string]*tls.Config{
		"NextProtos":         h2First,
		"h2 only":            h2Only,
		"GetConfigForClient": {GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) { return h2First, nil }},
	} {
		t.Run(name, func(t *testing.T) {
			addr := startTLS(t, helloApp(gwist.WithHTTP2(false)), cfg)
			tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: getPKI(t).pool, ServerName: "localhost"},
				ForceAttemptHTTP2: true}
			defer tr.CloseIdleConnections()
			resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get("https://" + addr + "/")
			if err != nil {
				t.Fatalf("GET with an h2-capable client: %v", err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || resp.Proto != "HTTP/1.1" || resp.TLS.NegotiatedProtocol == "h2" {
				t.Fatalf("%d %s, ALPN %q", resp.StatusCode, resp.Proto, resp.TLS.NegotiatedProtocol)
			}
		})
	}
}
