package metrics_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/metrics"
)

// WithRegistry takes a Registerer that is not a registry (here one that
// adds a constant label) and the Gatherer to serve: a scrape over a real
// socket shows the App's metrics with the label.
func TestWithRegistryRegistererAndGatherer(t *testing.T) {
	reg := prometheus.NewRegistry()
	wrapped := prometheus.WrapRegistererWith(prometheus.Labels{"service": "todo"}, reg)
	app := quietApp()
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	m := metrics.New(app, metrics.WithRegistry(wrapped, reg))
	app.GET("/metrics", m.Handler())
	addr := start(t, app, nil)
	do(t, h1Client(t), "GET", "http://"+addr+"/", "")
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `gwist_http_requests_total{method="GET",protocol="h1",route="/",service="todo",status="2xx",tls="false"} 1`) {
		t.Fatalf("scrape:\n%s", b)
	}
	if m.Registry() != reg || m.Gatherer() != prometheus.Gatherer(reg) {
		t.Fatal("Registry/Gatherer do not give the registry served")
	}
}

// A Registerer that cannot be gathered, without a Gatherer: New says so.
func TestWithRegistryNeedsAGatherer(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "Gatherer") {
			t.Fatalf("panic %v, want one naming the missing Gatherer", r)
		}
	}()
	metrics.New(quietApp(), metrics.WithRegistry(prometheus.WrapRegistererWith(nil, prometheus.NewRegistry())))
}
