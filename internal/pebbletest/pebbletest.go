// Package pebbletest runs pebble, Let's Encrypt's ACME test server, from
// tests: it finds the binary (installing it with `go install` when it is
// missing), gives it a DNS resolver that sends every name to 127.0.0.1 and
// a certificate for its own HTTPS listener, starts it with validation at
// full speed, and stops it when the test ends, showing its output if the
// test failed.
//
//	pb := pebbletest.Start(t, pebbletest.Options{TLSPort: tlsPort, HTTPPort: httpPort})
//	m := pb.Manager(t, "app.test", autocert.DirCache(t.TempDir()))
//	// serve with m; a client trusting pb.Roots(t) gets m's certificates
package pebbletest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"

	"github.com/gwist/gwist/internal/gotool"
	"github.com/gwist/gwist/internal/syncbuf"
	"github.com/gwist/gwist/internal/testkit"
)

// Module is the pebble release the tests install and were written against.
const Module = "github.com/letsencrypt/pebble/v2/cmd/pebble@v2.10.3"

// Find returns the pebble binary, installing Module with `go install` when
// it is neither in PATH nor in Go's bin directory; "" when that fails.
func Find(t testing.TB) string { return gotool.Find(t, "pebble", Module) }

// Options configure a pebble.
type Options struct {
	// HTTPPort and TLSPort are where pebble validates HTTP-01 and
	// TLS-ALPN-01 challenges, on 127.0.0.1 (every name resolves there). A
	// port nothing listens on makes that challenge type fail.
	HTTPPort, TLSPort int
	// Validity is the lifetime of the certificates pebble issues (0:
	// pebble's default, 90 days). Whole seconds.
	Validity time.Duration
}

// Pebble is a running pebble.
type Pebble struct {
	// DirectoryURL is the ACME directory.
	DirectoryURL string
	// ListenerCA is a PEM file with the CA of pebble's own HTTPS listener:
	// an ACME client in another process trusts it through SSL_CERT_FILE.
	ListenerCA string
	mgmt       string
	client     *http.Client // trusts pebble's listener
	out        *syncbuf.Buffer
}

// Start runs pebble with o until the test ends. Validation runs at full
// speed (PEBBLE_VA_NOSLEEP), for real (PEBBLE_VA_ALWAYS_VALID=0), with no
// nonce rejected and no authorization reused, so every order is validated.
// It skips the test when pebble cannot be found or installed.
func Start(t testing.TB, o Options) *Pebble {
	t.Helper()
	bin := Find(t)
	if bin == "" {
		t.Skipf("pebble is not installed and `go install %s` failed", Module)
	}
	dir := t.TempDir()
	pool := writeListenerCert(t, dir)
	p := &Pebble{out: &syncbuf.Buffer{}, ListenerCA: filepath.Join(dir, "ca.pem")}
	listen, mgmt := testkit.FreeAddr(t), testkit.FreeAddr(t)
	p.DirectoryURL, p.mgmt = "https://"+listen+"/dir", "https://"+mgmt
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}
	t.Cleanup(tr.CloseIdleConnections)
	p.client = &http.Client{Transport: tr, Timeout: 30 * time.Second}

	profile := map[string]any{"description": "gwist tests"}
	if o.Validity > 0 {
		profile["validityPeriod"] = int64(o.Validity / time.Second)
	}
	cfg := map[string]any{"pebble": map[string]any{
		"listenAddress": listen, "managementListenAddress": mgmt,
		"certificate": filepath.Join(dir, "cert.pem"), "privateKey": filepath.Join(dir, "key.pem"),
		"httpPort": o.HTTPPort, "tlsPort": o.TLSPort, "keyAlgorithm": "ecdsa",
		"profiles": map[string]any{"default": profile},
	}}
	js, _ := json.Marshal(cfg)
	cfgPath := filepath.Join(dir, "pebble.json")
	if err := os.WriteFile(cfgPath, js, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-config", cfgPath, "-dnsserver", startDNS(t))
	cmd.Env = append(os.Environ(), "PEBBLE_VA_NOSLEEP=1", "PEBBLE_VA_ALWAYS_VALID=0",
		"PEBBLE_WFE_NONCEREJECT=0", "PEBBLE_AUTHZREUSE=0")
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatalf("pebbletest: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("pebble's output:\n%s", p.out.String())
		}
	})
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := p.client.Get(p.DirectoryURL)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		select {
		case <-exited:
			t.Fatalf("pebble exited:\n%s", p.out.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("pebble did not answer %s: %v\n%s", p.DirectoryURL, err, p.out.String())
		}
	}
}

// HTTPClient returns a client that trusts pebble's own HTTPS listener, for
// acme.Client.HTTPClient.
func (p *Pebble) HTTPClient() *http.Client { return p.client }

// Output is what pebble logged so far.
func (p *Pebble) Output() string { return p.out.String() }

// Roots returns the pool of pebble's issuing roots (made at its start):
// what a client needs, and all it needs, to trust the certificates it
// issues.
func (p *Pebble) Roots(t testing.TB) *x509.CertPool {
	t.Helper()
	resp, err := p.client.Get(p.mgmt + "/roots/0")
	if err != nil {
		t.Fatalf("pebble's root: %v", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("pebble's root: %s %v", resp.Status, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		t.Fatalf("pebble's root is not PEM: %q", b)
	}
	return pool
}

// Manager returns an autocert.Manager that obtains certificates for domain
// alone from this pebble, accepting its terms, keeping them in cache (nil:
// in memory only).
func (p *Pebble) Manager(domain string, cache autocert.Cache) *autocert.Manager {
	return &autocert.Manager{
		Prompt:     autocert.AcceptTOS,
		HostPolicy: HostPolicy(domain),
		Cache:      cache,
		Client:     &acme.Client{DirectoryURL: p.DirectoryURL, HTTPClient: p.client},
	}
}

// HostPolicy allows domain alone, as autocert.HostWhitelist does, but with
// any port: autocert also checks the Host of HTTP-01 requests, which names
// the port when it is not 80, as in tests.
func HostPolicy(domain string) autocert.HostPolicy {
	allow := autocert.HostWhitelist(domain)
	return func(ctx context.Context, host string) error {
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		return allow(ctx, host)
	}
}

// writeListenerCert writes cert.pem and key.pem into dir, for pebble's own
// HTTPS listener on 127.0.0.1, and their CA as ca.pem; it returns the pool
// of that CA.
func writeListenerCert(t testing.TB, dir string) *x509.CertPool {
	t.Helper()
	ca := testkit.NewCA("pebbletest listener CA")
	leaf := ca.Server("pebble", "localhost", "127.0.0.1")
	for name, data := range map[string][]byte{"cert.pem": testkit.CertPEM(leaf), "key.pem": testkit.KeyPEM(leaf), "ca.pem": ca.PEM()} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return ca.Pool
}

// Port returns the port of a "host:port" address, failing the test when it
// has none.
func Port(t testing.TB, addr string) int {
	t.Helper()
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(port)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
