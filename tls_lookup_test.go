package gwist_test

import (
	"crypto/tls"
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/syncbuf"
)

// A certificate lookup that takes four times the handshake timeout (an
// ACME order inside autocert's GetCertificate) completes the handshake and
// the request; a client that goes silent after sending its ClientHello is
// still cut, the lookup's time aside, and the failure is logged with its
// reason.
func TestSlowCertLookupOutlivesHandshakeTimeout(t *testing.T) {
	const timeout, lookupTime = 500 * time.Millisecond, 2 * time.Second
	cert := getPKI(t).serverA
	var logs syncbuf.Buffer
	app := helloApp(gwist.WithTLSHandshakeTimeout(timeout), gwist.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	addr := startTLS(t, app, &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		time.Sleep(lookupTime)
		return &cert, nil
	}})

	start := time.Now()
	resp, body := get(t, httpsClient(t, &tls.Config{ServerName: "a.test"}), "https://"+addr+"/")
	if resp.StatusCode != 200 || body != "Hello, World!" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	if took := time.Since(start); took < lookupTime {
		t.Fatalf("answered in %v, before the %v lookup ended", took, lookupTime)
	}

	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	start = time.Now()
	if _, err := silent.Write(clientHello(t)); err != nil {
		t.Fatal(err)
	}
	drainClosed(t, silent)
	if took := time.Since(start); took < lookupTime+timeout/2 || took > lookupTime+timeout+3*time.Second {
		t.Fatalf("silent client closed after %v; want about %v + %v", took, lookupTime, timeout)
	}
	st := app.Stats().TLS
	if st.Full != 1 || st.Failed["timeout"] != 1 || st.SlowLookupsTotal != 2 || st.SlowLookups != 0 {
		t.Fatalf("full %d, timeouts %d, slow lookups %d (now %d)", st.Full, st.Failed["timeout"], st.SlowLookupsTotal, st.SlowLookups)
	}
	waitFor(t, 2*time.Second, "the log line", func() bool { return strings.Contains(logs.String(), "reason=timeout") })
	line := logs.String()
	if !strings.Contains(line, "TLS handshake failed") || !strings.Contains(line, "remote="+silent.LocalAddr().String()) {
		t.Fatalf("log: %s", line)
	}
}

// A burst of handshakes whose lookups are slow (new names, each waiting for
// its certificate) does not keep other handshakes out, even with a single
// handshake slot; past WithMaxSlowCertLookups further lookups are refused
// at once, and the waiting handshakes then complete.
func TestSlowCertLookupsBounded(t *testing.T) {
	const maxSlow = 4
	p := getPKI(t)
	release := make(chan struct{})
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	app := helloApp(gwist.WithMaxHandshakes(1), gwist.WithMaxSlowCertLookups(maxSlow), gwist.WithLogger(discardLogger()))
	addr := startTLS(t, app, &tls.Config{GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
		if strings.HasPrefix(h.ServerName, "new") {
			<-release
		}
		return &p.serverA, nil
	}})
	t.Cleanup(unblock) // before the shutdown startTLS registered

	errs := make(chan error, maxSlow)
	newName := func(i int) {
		go func() {
			c := httpsClient(t, &tls.Config{ServerName: "new" + string(rune('a'+i)) + ".test", InsecureSkipVerify: true})
			resp, err := c.Get("https://" + addr + "/")
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != 200 {
					err = errors.New(resp.Status)
				}
			}
			errs <- err
		}()
	}
	for i := 0; i < maxSlow-1; i++ {
		newName(i)
	}
	waitFor(t, 5*time.Second, "slow lookups", func() bool { return app.Stats().TLS.SlowLookups == maxSlow-1 })

	known := httpsClient(t, &tls.Config{ServerName: "a.test"})
	start := time.Now()
	if resp, body := get(t, known, "https://"+addr+"/"); resp.StatusCode != 200 || body != "Hello, World!" {
		t.Fatalf("known name next to %d slow lookups: %d %q", maxSlow-1, resp.StatusCode, body)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("known name took %v next to slow lookups", took)
	}

	newName(maxSlow - 1)
	waitFor(t, 5*time.Second, "the bound", func() bool { return app.Stats().TLS.SlowLookups == maxSlow })
	if _, err := known.Get("https://" + addr + "/"); err == nil {
		t.Fatal("a handshake at the bound was served")
	}
	if st := app.Stats().TLS; st.Failed["lookup_refused"] != 1 {
		t.Fatalf("Failed %v", st.Failed)
	}

	unblock()
	for i := 0; i < maxSlow; i++ {
		if err := <-errs; err != nil {
			t.Fatalf("slow handshake: %v", err)
		}
	}
	if st := app.Stats().TLS; st.Full != maxSlow+1 || st.SlowLookups != 0 {
		t.Fatalf("full %d, slow lookups now %d", st.Full, st.SlowLookups)
	}
}

// Handshake failures are logged with their reason, at most one line a
// second: three failures in a row make one line, and all three are counted.
func TestTLSHandshakeFailuresLogged(t *testing.T) {
	var logs syncbuf.Buffer
	app := helloApp(gwist.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	addr := startTLS(t, app, &tls.Config{GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
		return nil, errors.New("no certificate for " + h.ServerName)
	}})
	for i := 0; i < 3; i++ {
		conn, err := tls.Dial("tcp", addr, &tls.Config{ServerName: "unknown.test", InsecureSkipVerify: true})
		if err == nil {
			conn.Close()
			t.Fatal("handshake without a certificate succeeded")
		}
	}
	waitFor(t, 2*time.Second, "the failures counted", func() bool { return app.Stats().TLS.Failed["handshake_error"] == 3 })
	out := logs.String()
	if n := strings.Count(out, "TLS handshake failed"); n != 1 {
		t.Fatalf("%d lines for 3 failures within a second:\n%s", n, out)
	}
	if !strings.Contains(out, "reason=handshake_error") || !strings.Contains(out, "no certificate for unknown.test") ||
		!strings.Contains(out, "remote=127.0.0.1:") {
		t.Fatalf("log line without the reason or the client: %s", out)
	}
}
