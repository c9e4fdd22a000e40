package metrics_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/goleak"

	"github.com/gwist/gwist"
)

func TestMain(m *testing.M) {
	// IgnoreCurrent: gnet starts its own package-level goroutine pool at init.
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}

func quietApp(opts ...gwist.Option) *gwist.App {
	return gwist.New(append([]gwist.Option{gwist.WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
}

// start serves app on a free loopback port (HTTPS when cfg is set) and
// shuts it down when the test ends; it returns "127.0.0.1:PORT".
func start(t *testing.T, app *gwist.App, cfg *tls.Config) string {
	t.Helper()
	var addr net.Addr
	var err error
	if cfg != nil {
		addr, err = app.StartTLS("127.0.0.1:0", cfg)
	} else {
		addr, err = app.Start("127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := app.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return addr.String()
}

var (
	certOnce sync.Once
	cert     tls.Certificate
	certPool *x509.CertPool
)

// testCert is a self-signed ECDSA certificate for localhost and 127.0.0.1.
func testCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	certOnce.Do(func() {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
			DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
			IsCA: true, BasicConstraintsValid: true,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			panic(err)
		}
		leaf, _ := x509.ParseCertificate(der)
		cert = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}
		certPool = x509.NewCertPool()
		certPool.AddCert(leaf)
	})
	return cert, certPool
}

func serverTLS(t *testing.T) *tls.Config {
	c, _ := testCert(t)
	return &tls.Config{Certificates: []tls.Certificate{c}}
}

func clientTLS(t *testing.T, protos ...string) *tls.Config {
	_, pool := testCert(t)
	return &tls.Config{RootCAs: pool, ServerName: "localhost", NextProtos: protos}
}

// clients: plain HTTP/1.1, HTTP/1.1 over TLS, h2 over TLS, h2c.
func h1Client(t *testing.T) *http.Client { return client(t, &http.Transport{}) }

func h1TLSClient(t *testing.T) *http.Client {
	return client(t, &http.Transport{TLSClientConfig: clientTLS(t, "http/1.1")})
}

func h2Client(t *testing.T) *http.Client {
	return client(t, &http.Transport{TLSClientConfig: clientTLS(t, "h2"), ForceAttemptHTTP2: true})
}

func h2cClient(t *testing.T) *http.Client {
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	return client(t, &http.Transport{Protocols: p})
}

func client(t *testing.T, tr *http.Transport) *http.Client {
	tr.DisableCompression = true
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// do sends a request and returns its status, failing the test on error.
func do(t *testing.T, c *http.Client, method, url, body string) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body == "" {
		req.Body = nil
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// families is a parsed scrape.
type families map[string]*dto.MetricFamily

// scrape GETs url (a /metrics) with its own connection and parses the
// text exposition.
func scrape(t *testing.T, url string) families {
	t.Helper()
	tr := &http.Transport{DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("scrape: status %d", resp.StatusCode)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing the scrape: %v", err)
	}
	return fams
}

// find returns the metric of family name whose labels include want
// ("k=v" pairs), or nil.
func (f families) find(name string, want ...string) *dto.Metric {
	fam := f[name]
	if fam == nil {
		return nil
	}
	for _, m := range fam.Metric {
		if hasLabels(m, want) {
			return m
		}
	}
	return nil
}

func hasLabels(m *dto.Metric, want []string) bool {
	have := map[string]string{}
	for _, l := range m.Label {
		have[l.GetName()] = l.GetValue()
	}
	for _, kv := range want {
		k, v, _ := strings.Cut(kv, "=")
		if have[k] != v {
			return false
		}
	}
	return true
}

// value is the counter or gauge value of the metric, -1 when absent.
func (f families) value(name string, labels ...string) float64 {
	m := f.find(name, labels...)
	switch {
	case m == nil:
		return -1
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	}
	return -1
}

// hist is the histogram of the metric, or nil.
func (f families) hist(name string, labels ...string) *dto.Histogram {
	if m := f.find(name, labels...); m != nil {
		return m.Histogram
	}
	return nil
}

// series lists a family's label sets, for failure messages.
func (f families) series(name string) string {
	var out []string
	if fam := f[name]; fam != nil {
		for _, m := range fam.Metric {
			var ls []string
			for _, l := range m.Label {
				ls = append(ls, l.GetName()+"="+l.GetValue())
			}
			out = append(out, fmt.Sprintf("{%s}", strings.Join(ls, ",")))
		}
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// waitFor polls cond every 10 ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
