//go:build linux

package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/pebbletest"
	"github.com/gwist/gwist/internal/testkit"
)

// The example with -acme-dir gets its certificate from a real ACME server
// (pebble) by TLS-ALPN-01 on -tls-addr, serves its routes over HTTPS to a
// client that trusts only pebble's root, over HTTP/1.1 and HTTP/2, redirects
// -addr to HTTPS, and keeps the certificate in -acme-cache.
func TestHelloACME(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs pebble")
	}
	const domain = "hello.gwist.test"
	addr, tlsAddr, health := testkit.FreeAddr(t), testkit.FreeAddr(t), testkit.FreeAddr(t)
	pb := pebbletest.Start(t, pebbletest.Options{TLSPort: pebbletest.Port(t, tlsAddr), HTTPPort: pebbletest.Port(t, addr)})
	t.Setenv("SSL_CERT_FILE", pb.ListenerCA) // the example's ACME client trusts pebble's listener
	cache := t.TempDir()
	startHelloProcess(t, "http://"+health+"/readyz", "-addr", addr, "-tls-addr", tlsAddr, "-health-addr", health,
		"-acme-dir", pb.DirectoryURL, "-acme-domain", domain, "-acme-cache", cache)
	roots := pb.Roots(t)

	for _, h2 := range []bool{false, true} {
		c := pebbleClient(t, roots, tlsAddr, h2)
		resp, err := c.Get("https://" + domain + "/json")
		if err != nil {
			t.Fatalf("h2 %v: %v", h2, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || strings.TrimSpace(string(b)) != `{"message":"Hello, World!"}` || resp.ProtoMajor != map[bool]int{false: 1, true: 2}[h2] {
			t.Fatalf("h2 %v: %s %s %q", h2, resp.Proto, resp.Status, b)
		}
	}
	req, _ := http.NewRequest("GET", "http://"+addr+"/json", nil)
	req.Host = domain
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || loc != "https://"+domain+"/json" {
		t.Fatalf("-addr: %d %q, want a redirect to https", resp.StatusCode, loc)
	}
	if _, err := os.Stat(filepath.Join(cache, domain)); err != nil {
		t.Fatalf("certificate not in -acme-cache: %v", err)
	}
}

// -acme-dir without what it needs stops the example with a clear message.
func TestHelloACMEFlagErrors(t *testing.T) {
	for args, want := range map[string]string{
		"-acme-dir https://ca.test/dir -acme-domain a.test":                               "-acme-dir needs -tls-addr",
		"-acme-dir https://ca.test/dir -tls-addr 127.0.0.1:0":                             "-acme-dir needs -acme-domain",
		"-acme-dir https://ca.test/dir -acme-domain a.test -tls-addr 127.0.0.1:0 -cert c": "drop -cert and -key",
	} {
		out, err := exec.Command(buildHello(t), append(strings.Fields(args), "-addr", "")...).CombinedOutput()
		if err == nil || !strings.Contains(string(out), want) {
			t.Errorf("%s: %v\n%s\nwant an error with %q", args, err, out, want)
		}
	}
}

// pebbleClient is an HTTPS client trusting roots alone that connects to
// addr for every name.
func pebbleClient(t *testing.T, roots *x509.CertPool, addr string, h2 bool) *http.Client {
	tr := &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
		ForceAttemptHTTP2: h2,
	}
	if !h2 {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}
