package metrics_test

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log/slog"
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
	"github.com/gwist/gwist/internal/testkit"
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
	return testkit.Serve(t, func() (net.Addr, error) {
		if cfg != nil {
			return app.StartTLS("127.0.0.1:0", cfg)
		}
		return app.Start("127.0.0.1:0")
	}, app.Shutdown)
}

var (
	certOnce sync.Once
	cert     tls.Certificate
	certPool *x509.CertPool
)

// testCert is a self-signed ECDSA certificate for localhost and 127.0.0.1.
func testCert(*testing.T) (tls.Certificate, *x509.CertPool) {
	certOnce.Do(func() { cert, certPool = testkit.SelfSigned("localhost", "127.0.0.1") })
	return cert, certPool
}

func serverTLS(t *testing.T) *tls.Config {
	c, _ := testCert(t)
	return testkit.ServerConfig(c)
}

func clientTLS(t *testing.T, protos ...string) *tls.Config {
	_, pool := testCert(t)
	return &tls.Config{RootCAs: pool, ServerName: "localhost", NextProtos: protos}
}

// clients: plain HTTP/1.1, HTTP/1.1 over TLS, h2 over TLS, h2c.
func h1Client(t *testing.T) *http.Client { return testkit.Client(t, testkit.H1(nil)) }

func h1TLSClient(t *testing.T) *http.Client {
	return testkit.Client(t, testkit.H1(clientTLS(t, "http/1.1")))
}

func h2Client(t *testing.T) *http.Client { return testkit.Client(t, testkit.H2(clientTLS(t, "h2"))) }

func h2cClient(t *testing.T) *http.Client { return testkit.Client(t, testkit.H2C()) }

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

// waitFor waits until cond holds or timeout passes (testkit.WaitFor).
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, timeout, what, cond)
}
