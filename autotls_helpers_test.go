package gwist_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/acme/autocert"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/tlsstate"
)

// countingManager is an autocert.Manager seen through gwist.CertManager,
// counting the validations it answers: TLS-ALPN-01 lookups (a ClientHello
// offering only acme-tls/1) and HTTP-01 requests.
type countingManager struct {
	m               *autocert.Manager
	tlsALPN, http01 atomic.Int32
}

func (c *countingManager) TLSConfig() *tls.Config {
	cfg := c.m.TLSConfig()
	get := cfg.GetCertificate
	cfg.GetCertificate = func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
		if len(h.SupportedProtos) == 1 && h.SupportedProtos[0] == tlsstate.ProtoACMETLS {
			c.tlsALPN.Add(1)
		}
		return get(h)
	}
	return cfg
}

func (c *countingManager) HTTPHandler(fallback http.Handler) http.Handler {
	h := c.m.HTTPHandler(fallback)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/acme-challenge/") {
			c.http01.Add(1)
		}
		h.ServeHTTP(w, r)
	})
}

// acmeServer serves "Hello, World!" over HTTPS (h2 and HTTP/1.1) on tlsAddr
// with m's certificates, and, when httpAddr is set, m's HTTP-01 challenges
// and the redirect to HTTPS on it.
type acmeServer struct {
	name  string
	start func(t *testing.T, m gwist.CertManager, tlsAddr, httpAddr string) *gwist.App // the App, for gwist
}

var acmeServers = []acmeServer{
	{"gwist", func(t *testing.T, m gwist.CertManager, tlsAddr, httpAddr string) *gwist.App {
		app := helloApp(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
		if _, err := app.StartAutoTLS(tlsAddr, m); err != nil {
			t.Fatalf("StartAutoTLS: %v", err)
		}
		t.Cleanup(func() { shutdownApp(t, app) })
		if httpAddr != "" {
			if _, err := app.StartACMEHTTP(httpAddr, m); err != nil {
				t.Fatalf("StartACMEHTTP: %v", err)
			}
		}
		return app
	}},
	{"net/http", func(t *testing.T, m gwist.CertManager, tlsAddr, httpAddr string) *gwist.App {
		quiet := log.New(io.Discard, "", 0)
		hello := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "Hello, World!") })
		serve := func(srv *http.Server, addr string, useTLS bool) {
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				if useTLS {
					_ = srv.ServeTLS(ln, "", "")
				} else {
					_ = srv.Serve(ln)
				}
			}()
			t.Cleanup(func() { srv.Close(); <-done })
		}
		serve(&http.Server{Handler: hello, TLSConfig: m.TLSConfig(), ErrorLog: quiet}, tlsAddr, true)
		if httpAddr != "" {
			serve(&http.Server{Handler: m.HTTPHandler(nil), ErrorLog: quiet}, httpAddr, false)
		}
		return nil
	}},
}

// acmeClient is an HTTPS client that trusts roots alone and connects to
// addr for every name (as if DNS sent the name there): over HTTP/2 when h2,
// else HTTP/1.1. Its idle connections are closed when the test ends.
func acmeClient(t *testing.T, roots *x509.CertPool, addr string, h2, keepAlive bool) *http.Client {
	tr := &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2: h2,
		DisableKeepAlives: !keepAlive,
	}
	if !h2 {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// getHello GETs url with c and checks the answer: 200 "Hello, World!" over
// proto. It returns the response (its body read and closed).
func getHello(t *testing.T, c *http.Client, url, proto string) *http.Response {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || string(b) != "Hello, World!" || resp.Proto != proto {
		t.Fatalf("GET %s: %s %s %q %v; want 200 %s", url, resp.Proto, resp.Status, b, err, proto)
	}
	return resp
}

// servedSerial is the serial number of the leaf certificate a new
// connection to addr for name gets.
func servedSerial(roots *x509.CertPool, addr, name string) (string, error) {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr,
		&tls.Config{RootCAs: roots, ServerName: name})
	if err != nil {
		return "", err
	}
	defer conn.Close()
	certs := conn.ConnectionState().PeerCertificates
	if len(certs) == 0 {
		return "", errors.New("no certificate")
	}
	return certs[0].SerialNumber.String(), nil
}
