package gwist_test

import (
	"crypto/tls"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// acmeTLSConfig is what autocert.Manager.TLSConfig returns: a certificate
// lookup that answers a TLS-ALPN-01 validation (a ClientHello offering only
// "acme-tls/1") with the challenge certificate, and NextProtos listing
// acme-tls/1 after the HTTP protocols.
func acmeTLSConfig(t *testing.T) *tls.Config {
	p := getPKI(t)
	return &tls.Config{
		GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
			if len(h.SupportedProtos) == 1 && h.SupportedProtos[0] == "acme-tls/1" {
				return &p.serverB, nil // the challenge certificate
			}
			return &p.serverA, nil
		},
		NextProtos: []string{"h2", "http/1.1", "acme-tls/1"},
	}
}

// An ACME server validating TLS-ALPN-01 (RFC 8737) offers only "acme-tls/1":
// the handshake completes with the challenge certificate, directly or
// through GetConfigForClient, with HTTP/2 on or off, and the server then
// closes the connection (close_notify, no HTTP on it). HTTP clients on the
// same listener never get acme-tls/1 and are served as before.
func TestTLSALPNChallengeAnswered(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		for name, cfg := range map[string]*tls.Config{
			"NextProtos": acmeTLSConfig(t),
			"GetConfigForClient": {GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
				return acmeTLSConfig(t), nil
			}},
		} {
			if h2 {
				name += "/h2"
			}
			t.Run(name, func(t *testing.T) {
				app := helloApp(gwist.WithHTTP2(h2))
				addr := startTLS(t, app, cfg)
				conn, err := tls.Dial("tcp", addr, &tls.Config{ServerName: "b.test", NextProtos: []string{"acme-tls/1"},
					InsecureSkipVerify: true})
				if err != nil {
					t.Fatalf("TLS-ALPN-01 validation handshake: %v", err)
				}
				defer conn.Close()
				cs := conn.ConnectionState()
				if cs.NegotiatedProtocol != "acme-tls/1" || cs.PeerCertificates[0].Subject.CommonName != "b.test" {
					t.Fatalf("ALPN %q, certificate %q; want acme-tls/1 and the challenge certificate",
						cs.NegotiatedProtocol, cs.PeerCertificates[0].Subject.CommonName)
				}
				// The server closes on its own; a request sent anyway gets nothing.
				_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
				_, _ = io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
				got, err := io.ReadAll(conn) // nil error only after close_notify
				if err != nil || len(got) != 0 {
					t.Fatalf("after the challenge handshake: %q, %v; want a clean close", got, err)
				}
				waitConns(t, app, 0)

				want := "HTTP/1.1"
				if h2 {
					want = "HTTP/2.0"
				}
				tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: getPKI(t).pool, ServerName: "localhost"},
					ForceAttemptHTTP2: true}
				defer tr.CloseIdleConnections()
				resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get("https://" + addr + "/")
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if resp.StatusCode != 200 || resp.Proto != want || resp.TLS.PeerCertificates[0].Subject.CommonName != "a.test" {
					t.Fatalf("HTTP client: %d %s %q", resp.StatusCode, resp.Proto, resp.TLS.PeerCertificates[0].Subject.CommonName)
				}
				if st := app.Stats().TLS; st.ByALPN["acme-tls/1"] != 1 {
					t.Fatalf("ByALPN %v", st.ByALPN)
				}
			})
		}
	}
}

// ALPN still offers only what gwist or its TLS layer answers: acme-tls/1
// only when the application lists it, other unknown protocols never, and a
// list without any protocol gwist speaks still gets HTTP/1.1.
func TestTLSALPNOnlyAnswered(t *testing.T) {
	p := getPKI(t)
	for _, tc := range []struct {
		name       string
		nextProtos []string
		client     []string
		want       string // "" : the handshake fails
	}{
		{"acme-tls/1 not listed", []string{"h2", "http/1.1"}, []string{"acme-tls/1"}, ""},
		{"unknown protocol listed", []string{"http/1.1", "spdy/3"}, []string{"spdy/3"}, ""},
		{"only acme-tls/1 listed", []string{"acme-tls/1"}, []string{"http/1.1"}, "http/1.1"},
		{"acme-tls/1 listed first", []string{"acme-tls/1", "http/1.1"}, []string{"http/1.1", "acme-tls/1"}, "http/1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := startTLS(t, helloApp(), &tls.Config{Certificates: []tls.Certificate{p.serverA}, NextProtos: tc.nextProtos})
			conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: p.pool, ServerName: "localhost", NextProtos: tc.client})
			if tc.want == "" {
				if err == nil {
					conn.Close()
					t.Fatalf("client offering %q negotiated %q", tc.client, conn.ConnectionState().NegotiatedProtocol)
				}
				if !strings.Contains(err.Error(), "no application protocol") {
					t.Fatalf("handshake error %v; want no application protocol", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if got := conn.ConnectionState().NegotiatedProtocol; got != tc.want {
				t.Fatalf("negotiated %q, want %q", got, tc.want)
			}
		})
	}
}
