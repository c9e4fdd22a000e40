package gwist_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"

	"github.com/gwist/gwist/internal/pebbletest"
	"github.com/gwist/gwist/internal/testkit"
)

// Automatic HTTPS against a real ACME server (pebble, installed with `go
// install` when missing), gwist beside net/http with the same
// autocert.Manager: a certificate obtained by TLS-ALPN-01 alone (pebble
// cannot reach an HTTP port), by HTTP-01 alone (it cannot reach the TLS
// port, so autocert's first choice fails and it falls back), and with both
// reachable. Each time a client that trusts only pebble's root gets 200 over
// HTTP/1.1 and HTTP/2, the certificate is in the disk cache, and the HTTP
// listener, when there is one, redirects to HTTPS. The time from the first
// request to its response (the whole ACME order happens inside it) is
// logged for both servers.
func TestAutoTLSWithPebble(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs pebble")
	}
	scenarios := []struct {
		name            string
		tlsALPN, http01 bool // which challenge pebble can validate
	}{
		{"tls-alpn-01", true, false},
		{"http-01", false, true},
		{"both", true, true},
	}
	var mu sync.Mutex
	var timings []string
	for _, sc := range scenarios {
		for _, srv := range acmeServers {
			t.Run(sc.name+"/"+srv.name, func(t *testing.T) {
				domain := strings.ReplaceAll(sc.name, "-", "") + ".gwist.test"
				tlsAddr, httpAddr, dead := testkit.FreeAddr(t), testkit.FreeAddr(t), testkit.FreeAddr(t)
				opts := pebbletest.Options{TLSPort: pebbletest.Port(t, dead), HTTPPort: pebbletest.Port(t, dead)}
				if sc.tlsALPN {
					opts.TLSPort = pebbletest.Port(t, tlsAddr)
				}
				if sc.http01 {
					opts.HTTPPort = pebbletest.Port(t, httpAddr)
				} else {
					httpAddr = "" // no HTTP listener: autocert then tries TLS-ALPN-01 alone
				}
				pb := pebbletest.Start(t, opts)
				cache := t.TempDir()
				m := &countingManager{m: pb.Manager(domain, autocert.DirCache(cache))}
				app := srv.start(t, m, tlsAddr, httpAddr)
				roots := pb.Roots(t)

				start := time.Now()
				getHello(t, acmeClient(t, roots, tlsAddr, false, false), "https://"+domain+"/", "HTTP/1.1")
				took := time.Since(start)
				getHello(t, acmeClient(t, roots, tlsAddr, true, false), "https://"+domain+"/", "HTTP/2.0")
				t.Logf("first request to a served certificate: %v", took.Round(time.Millisecond))
				mu.Lock()
				timings = append(timings, t.Name()+": "+took.Round(time.Millisecond).String())
				mu.Unlock()

				alpn, h01 := m.tlsALPN.Load(), m.http01.Load()
				if sc.tlsALPN && (alpn == 0 || h01 != 0) || !sc.tlsALPN && h01 == 0 {
					t.Fatalf("validations answered: TLS-ALPN-01 %d, HTTP-01 %d", alpn, h01)
				}
				if app != nil && sc.tlsALPN {
					if n := app.Stats().TLS.ByALPN["acme-tls/1"]; n == 0 {
						t.Fatalf("no acme-tls/1 handshake counted: %v", app.Stats().TLS.ByALPN)
					}
				}
				if _, err := os.Stat(filepath.Join(cache, domain)); err != nil {
					t.Fatalf("certificate not in the disk cache: %v", err)
				}
				if httpAddr != "" {
					// "/" is a route of the App: the ACME listener redirects anyway.
					req, _ := http.NewRequest("GET", "http://"+httpAddr+"/?q=1", nil)
					req.Host = domain
					resp, err := newClient(t).Do(req)
					if err != nil {
						t.Fatal(err)
					}
					resp.Body.Close()
					if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusFound || loc != "https://"+domain+"/?q=1" {
						t.Fatalf("plain GET: %d %q, want a redirect to https", resp.StatusCode, loc)
					}
				}
			})
		}
	}
	for _, line := range timings {
		t.Log(line)
	}
}

// A certificate in the disk cache is served after a restart without asking
// the CA (here gone), and a renewal (pebble issues certificates valid for
// 15 s; autocert renews a third of the lifetime before the end) reaches new
// connections while the server runs; a connection opened before it keeps
// its certificate and is still served.
func TestAutoTLSCacheAndRenewal(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs pebble")
	}
	const domain = "renew.gwist.test"
	tlsAddr := testkit.FreeAddr(t)
	pb := pebbletest.Start(t, pebbletest.Options{TLSPort: pebbletest.Port(t, tlsAddr),
		HTTPPort: pebbletest.Port(t, testkit.FreeAddr(t)), Validity: 15 * time.Second})
	cache := t.TempDir()
	app := acmeServers[0].start(t, pb.Manager(domain, autocert.DirCache(cache)), tlsAddr, "")
	roots := pb.Roots(t)

	kept := acmeClient(t, roots, tlsAddr, false, true)
	first := getHello(t, kept, "https://"+domain+"/", "HTTP/1.1")
	serial := first.TLS.PeerCertificates[0].SerialNumber.String()
	issued := time.Now()

	// Restart: another App, with a Manager whose CA cannot be reached,
	// serves the cached certificate.
	restarted := testkit.FreeAddr(t)
	offline := &autocert.Manager{Prompt: autocert.AcceptTOS, HostPolicy: autocert.HostWhitelist(domain),
		Cache: autocert.DirCache(cache), Client: &acme.Client{DirectoryURL: "https://127.0.0.1:1/dir"}}
	acmeServers[0].start(t, offline, restarted, "")
	if got, err := servedSerial(roots, restarted, domain); err != nil || got != serial {
		t.Fatalf("after a restart from the cache: serial %s, %v; want %s", got, err, serial)
	}

	var renewed string
	if !testkit.Eventually(40*time.Second, func() bool {
		got, err := servedSerial(roots, tlsAddr, domain)
		if err != nil {
			t.Fatalf("new connection while renewing: %v", err)
		}
		renewed = got
		return got != serial
	}) {
		t.Fatalf("no renewal within 40 s of issuance\n%s", pb.Output())
	}
	t.Logf("renewal seen by a new connection %v after issuance", time.Since(issued).Round(time.Millisecond))
	again := getHello(t, kept, "https://"+domain+"/", "HTTP/1.1")
	if got := again.TLS.PeerCertificates[0].SerialNumber.String(); got != serial {
		t.Fatalf("the connection opened before the renewal now shows serial %s (was %s)", got, serial)
	}
	fresh := getHello(t, acmeClient(t, roots, tlsAddr, true, false), "https://"+domain+"/", "HTTP/2.0")
	if got := fresh.TLS.PeerCertificates[0].SerialNumber.String(); got != renewed {
		t.Fatalf("new connection: serial %s, want the renewed %s", got, renewed)
	}
	if st := app.Stats().TLS; st.ByALPN["acme-tls/1"] < 2 {
		t.Fatalf("renewal not validated by TLS-ALPN-01 on the listener: %v", st.ByALPN)
	}
}
