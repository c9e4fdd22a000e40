package metrics_test

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/metrics"
)

// metricsApp is an App with HTTP/2 on, a few routes and GET /metrics,
// served on a plaintext and a TLS listener.
func metricsApp(t *testing.T, opts ...gwist.Option) (app *gwist.App, plain, secure string) {
	app = quietApp(append([]gwist.Option{gwist.WithHTTP2(true)}, opts...)...)
	app.GET("/users/:id", func(c *gwist.Ctx) error { return c.String(200, "user "+c.Param("id")) })
	app.POST("/echo", func(c *gwist.Ctx) error { return c.Bytes(200, "text/plain", c.Body()) })
	app.GET("/fail", func(c *gwist.Ctx) error { return errors.New("broken") })
	app.GET("/panic", func(c *gwist.Ctx) error { panic("boom") })
	app.GET("/metrics", metrics.New(app).Handler())
	return app, start(t, app, nil), start(t, app, serverTLS(t))
}

// Requests over plaintext HTTP/1.1, HTTP/1.1 over TLS, h2 and h2c are
// counted by route pattern (never the path), method, status class and
// protocol, with exact counts; the latency and body size histograms count
// the same requests and sum the bodies' bytes.
func TestRequestCounts(t *testing.T) {
	_, plain, secure := metricsApp(t)
	h1, h1s, h2, h2c := h1Client(t), h1TLSClient(t), h2Client(t), h2cClient(t)
	for i := range 3 {
		do(t, h1, "GET", fmt.Sprintf("http://%s/users/%d", plain, i), "")
	}
	do(t, h1, "HEAD", "http://"+plain+"/users/1", "")
	do(t, h1, "POST", "http://"+plain+"/echo", strings.Repeat("x", 100))
	do(t, h1, "POST", "http://"+plain+"/echo", strings.Repeat("y", 1000))
	do(t, h1, "GET", "http://"+plain+"/nope", "")
	do(t, h1, "PROPFIND", "http://"+plain+"/users/1", "") // 405: the path exists for GET only
	do(t, h1, "GET", "http://"+plain+"/fail", "")
	do(t, h1, "GET", "http://"+plain+"/panic", "") // observed after the recovery: a 500
	for i := range 2 {
		do(t, h1s, "GET", fmt.Sprintf("https://%s/users/s%d", secure, i), "")
		do(t, h2, "GET", fmt.Sprintf("https://%s/users/h%d", secure, i), "")
	}
	do(t, h2c, "GET", "http://"+plain+"/users/c", "")

	f := scrape(t, "http://"+plain+"/metrics")
	const name = "gwist_http_requests_total"
	for _, c := range []struct {
		labels []string
		want   float64
	}{
		{[]string{"route=/users/:id", "method=GET", "status=2xx", "protocol=h1", "tls=false"}, 3},
		{[]string{"route=/users/:id", "method=HEAD", "status=2xx", "protocol=h1", "tls=false"}, 1},
		{[]string{"route=/echo", "method=POST", "status=2xx", "protocol=h1", "tls=false"}, 2},
		{[]string{"route=<unmatched>", "method=GET", "status=4xx", "protocol=h1", "tls=false"}, 1},
		{[]string{"route=<unmatched>", "method=OTHER", "status=4xx", "protocol=h1", "tls=false"}, 1},
		{[]string{"route=/fail", "method=GET", "status=5xx", "protocol=h1", "tls=false"}, 1},
		{[]string{"route=/panic", "method=GET", "status=5xx", "protocol=h1", "tls=false"}, 1},
		{[]string{"route=/users/:id", "method=GET", "status=2xx", "protocol=h1", "tls=true"}, 2},
		{[]string{"route=/users/:id", "method=GET", "status=2xx", "protocol=h2", "tls=true"}, 2},
		{[]string{"route=/users/:id", "method=GET", "status=2xx", "protocol=h2", "tls=false"}, 1},
	} {
		if got := f.value(name, c.labels...); got != c.want {
			t.Errorf("%s%v = %v, want %v; series: %s", name, c.labels, got, c.want, f.series(name))
		}
	}
	if n := len(f[name].GetMetric()); n != 10 {
		t.Errorf("%d request series, want 10: %s", n, f.series(name))
	}
	if strings.Contains(f.series(name), "/users/1") || strings.Contains(f.series(name), "/nope") {
		t.Errorf("a raw path became a label: %s", f.series(name))
	}

	lat := f.hist("gwist_http_request_duration_seconds", "route=/users/:id", "method=GET")
	if lat.GetSampleCount() != 8 || lat.GetSampleSum() <= 0 {
		t.Errorf("latency of GET /users/:id: %d samples, sum %v; want 8 and > 0", lat.GetSampleCount(), lat.GetSampleSum())
	}
	in := f.hist("gwist_http_request_size_bytes", "route=/echo", "method=POST")
	out := f.hist("gwist_http_response_size_bytes", "route=/echo", "method=POST")
	if in.GetSampleCount() != 2 || in.GetSampleSum() != 1100 || out.GetSampleSum() != 1100 {
		t.Errorf("body sizes of POST /echo: in %d samples sum %v, out sum %v; want 2, 1100, 1100",
			in.GetSampleCount(), in.GetSampleSum(), out.GetSampleSum())
	}
	for _, b := range in.GetBucket() { // 100 falls in (64, 256], 1000 in (256, 1024]
		want := map[float64]uint64{64: 0, 256: 1, 1024: 2}[b.GetUpperBound()]
		if b.GetUpperBound() >= 1024 {
			want = 2
		}
		if b.GetUpperBound() >= 64 && b.GetCumulativeCount() != want {
			t.Errorf("request size bucket le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
	resp := f.hist("gwist_http_response_size_bytes", "route=/users/:id", "method=GET")
	if resp.GetSampleCount() != 8 || resp.GetSampleSum() != float64(len("user 0")*3+len("user s0")*4+len("user c")) {
		t.Errorf("response sizes of GET /users/:id: %d samples, sum %v", resp.GetSampleCount(), resp.GetSampleSum())
	}

	// The two TLS connections: their handshakes by version and ALPN, and
	// the phase histograms count both.
	if got := f.value("gwist_tls_handshakes_total", "resumed=false"); got != 2 {
		t.Errorf("full handshakes: %v, want 2", got)
	}
	if a, b := f.value("gwist_tls_handshakes_by_alpn_total", "alpn=h2"), f.value("gwist_tls_handshakes_by_alpn_total", "alpn=http/1.1"); a != 1 || b != 1 {
		t.Errorf("handshakes by ALPN: h2 %v, http/1.1 %v; want 1 and 1", a, b)
	}
	if got := f.value("gwist_tls_handshakes_by_version_total", "version=TLS 1.3"); got != 2 {
		t.Errorf("TLS 1.3 handshakes: %v, want 2", got)
	}
	for _, h := range []struct {
		name   string
		labels []string
	}{
		{"gwist_tls_handshake_seconds", nil},
		{"gwist_tls_handshake_phase_seconds", []string{"phase=hello"}},
		{"gwist_tls_handshake_phase_seconds", []string{"phase=queue"}},
		{"gwist_tls_handshake_phase_seconds", []string{"phase=run"}},
		{"gwist_tls_first_response_seconds", nil},
	} {
		if got := f.hist(h.name, h.labels...).GetSampleCount(); got != 2 {
			t.Errorf("%s%v: %d samples, want 2", h.name, h.labels, got)
		}
	}
	if f.hist("gwist_tls_handshake_seconds").GetSampleSum() <= 0 {
		t.Error("handshake time sums to 0")
	}
}

// 10,000 requests to distinct unmatched paths add one series, not 10,000:
// the exposition is as long after them as after one.
func TestUnmatchedPathsBounded(t *testing.T) {
	_, plain, _ := metricsApp(t)
	h1 := h1Client(t)
	do(t, h1, "GET", "http://"+plain+"/nope/first", "")
	before := scrapeText(t, "http://"+plain+"/metrics")
	for i := range 10000 {
		resp, err := h1.Get(fmt.Sprintf("http://%s/nope/%d", plain, i))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	after := scrapeText(t, "http://"+plain+"/metrics")
	f := scrape(t, "http://"+plain+"/metrics")
	if got := f.value("gwist_http_requests_total", "route=<unmatched>", "method=GET", "status=4xx"); got != 10001 {
		t.Errorf("unmatched GETs: %v, want 10001", got)
	}
	// The first scrape's own request adds the /metrics route's series once.
	gwistLines := func(s string) (n int) {
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "gwist_http_") && !strings.Contains(l, `route="/metrics"`) {
				n++
			}
			if strings.Contains(l, "/nope/") {
				t.Fatalf("a raw path in the exposition: %s", l)
			}
		}
		return n
	}
	if b, a := gwistLines(before), gwistLines(after); a != b {
		t.Errorf("request series lines: %d before the 10,000 paths, %d after", b, a)
	}
}

func scrapeText(t *testing.T, url string) string {
	t.Helper()
	resp, err := h1Client(t).Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A client that resumes its TLS session is counted as a resumed
// handshake; requests through App.ServeHTTP (net/http's server) are
// observed too.
func TestResumedHandshakeAndServeHTTP(t *testing.T) {
	app, plain, secure := metricsApp(t)
	cfg := clientTLS(t, "http/1.1")
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	for range 2 {
		c := testkit.Client(t, &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true})
		do(t, c, "GET", "https://"+secure+"/users/1", "")
	}
	srv := httptest.NewServer(app)
	defer srv.Close()
	do(t, h1Client(t), "GET", srv.URL+"/users/2", "")
	f := scrape(t, "http://"+plain+"/metrics")
	if full, resumed := f.value("gwist_tls_handshakes_total", "resumed=false"), f.value("gwist_tls_handshakes_total", "resumed=true"); full != 1 || resumed != 1 {
		t.Errorf("handshakes: %v full, %v resumed; want 1 and 1", full, resumed)
	}
	if got := f.value("gwist_http_requests_total", "route=/users/:id", "protocol=h1", "tls=false"); got != 1 {
		t.Errorf("the request through ServeHTTP: %v, want 1", got)
	}
}

// New installs the App's one Observer: a second is refused loudly rather
// than silently replacing the first, and so is one after Start.
func TestNewTwicePanics(t *testing.T) {
	app := quietApp()
	metrics.New(app)
	mustPanic(t, "a second New", func() { metrics.New(app) })
	other := quietApp()
	start(t, other, nil)
	mustPanic(t, "New after Start", func() { metrics.New(other) })
}

func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s did not panic", what)
		}
	}()
	f()
}

// A streamed request body (Group.StreamBody) is measured by the bytes its
// handler read.
func TestStreamedBodySize(t *testing.T) {
	app := quietApp()
	app.StreamBody(0).POST("/upload", func(c *gwist.Ctx) error {
		n, err := io.Copy(io.Discard, c.BodyReader())
		if err != nil {
			return err
		}
		return c.String(200, fmt.Sprint(n))
	})
	app.GET("/metrics", metrics.New(app).Handler())
	plain := start(t, app, nil)
	body := strings.Repeat("u", 300<<10) // more than one read's worth
	if code := do(t, h1Client(t), "POST", "http://"+plain+"/upload", body); code != 200 {
		t.Fatalf("upload: %d", code)
	}
	in := scrape(t, "http://"+plain+"/metrics").hist("gwist_http_request_size_bytes", "route=/upload", "method=POST")
	if in.GetSampleCount() != 1 || in.GetSampleSum() != float64(len(body)) {
		t.Errorf("streamed body size: %d samples, sum %v; want 1, %d", in.GetSampleCount(), in.GetSampleSum(), len(body))
	}
}

// Buckets given out of order (and repeated) are sorted: each request
// lands in its bucket.
func TestCustomBuckets(t *testing.T) {
	app := quietApp()
	app.POST("/echo", func(c *gwist.Ctx) error { return c.Bytes(200, "text/plain", c.Body()) })
	app.GET("/metrics", metrics.New(app, metrics.WithSizeBuckets(1000, 10, 100, 10)).Handler())
	plain := start(t, app, nil)
	do(t, h1Client(t), "POST", "http://"+plain+"/echo", strings.Repeat("x", 50))
	h := scrape(t, "http://"+plain+"/metrics").hist("gwist_http_request_size_bytes", "route=/echo")
	want := map[float64]uint64{10: 0, 100: 1, 1000: 1, math.Inf(1): 1}
	if len(h.GetBucket()) != len(want) {
		t.Fatalf("buckets: %v", h.GetBucket())
	}
	for _, b := range h.GetBucket() {
		if b.GetCumulativeCount() != want[b.GetUpperBound()] {
			t.Errorf("le=%v: %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want[b.GetUpperBound()])
		}
	}
}
