package gwist_test

import (
	"crypto/tls"
	"testing"
	"time"
)

// A client that closes its connection right after its handshake (pebble's
// TLS-ALPN-01 validator, health checks) completed that handshake, and the
// server counts it so: the loop may release the connection before the
// handshake goroutine has read the client's Finished, or while it checks
// it. Before tlsstate let the goroutine end such a handshake, a few in a
// hundred of them were counted as client_gone.
func TestTLSClientClosingAfterHandshakeCounted(t *testing.T) {
	withLookup := serverTLSConfig(t)
	certs := withLookup.Certificates
	withLookup.Certificates = nil
	withLookup.GetCertificate = func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return &certs[0], nil }
	for name, cfg := range map[string]*tls.Config{
		"certificates":   serverTLSConfig(t),
		"GetCertificate": withLookup, // as autocert serves: the handshake has a context
	} {
		t.Run(name, func(t *testing.T) {
			const n = 300
			app := helloApp()
			addr := startTLS(t, app, cfg)
			clientCfg := &tls.Config{RootCAs: getPKI(t).pool, ServerName: "a.test", MinVersion: tls.VersionTLS13}
			for i := 0; i < n; i++ {
				c, err := tls.Dial("tcp", addr, clientCfg)
				if err != nil {
					t.Fatal(err)
				}
				c.Close()
			}
			failed := func() (sum uint64) {
				for _, v := range app.Stats().TLS.Failed {
					sum += v
				}
				return sum
			}
			waitFor(t, 5*time.Second, "every handshake counted", func() bool { return app.Stats().TLS.Full+failed() == n })
			if st := app.Stats().TLS; st.Full != n || st.ByVersion["TLS 1.3"] != n {
				t.Fatalf("%d handshakes completed by the clients, counted: full %d, by version %v, failed %v",
					n, st.Full, st.ByVersion, st.Failed)
			}
		})
	}
}
