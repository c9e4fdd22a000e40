package metrics

import (
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/tlsstate"
)

// Metrics collects an App's metrics. It is a prometheus.Collector (for a
// registry of your own) and a gwist.Observer (installed on the App by New).
type Metrics struct {
	app           *gwist.App
	reg           prometheus.Registerer
	gatherer      prometheus.Gatherer
	handler       http.Handler
	latencyBounds []int64 // ns
	sizeBounds    []int64 // bytes
	table         atomic.Pointer[table]
}

// An Option configures New.
type Option func(*Metrics)

// WithRegistry makes New register the Metrics with reg, and Handler serve
// gatherer, instead of a registry of its own (which also has the Go
// runtime and process collectors). gatherer may be left out when reg is
// also a prometheus.Gatherer, as a *prometheus.Registry is
// (WithRegistry(reg), and prometheus.DefaultRegisterer); pass it for a
// Registerer that is not (prometheus.WrapRegistererWith's, say), or New
// panics.
func WithRegistry(reg prometheus.Registerer, gatherer ...prometheus.Gatherer) Option {
	return func(m *Metrics) {
		m.reg, m.gatherer = reg, nil
		if len(gatherer) > 0 {
			m.gatherer = prometheus.Gatherers(gatherer)
			if len(gatherer) == 1 {
				m.gatherer = gatherer[0]
			}
		}
	}
}

// WithLatencyBuckets sets the upper bounds of the request duration
// histogram's buckets (default: 100 µs, 250 µs, 500 µs, 1 ms,
// 2.5 ms, ... 10 s, as tlsstate.HistogramBounds).
func WithLatencyBuckets(bounds ...time.Duration) Option {
	return func(m *Metrics) {
		m.latencyBounds = m.latencyBounds[:0]
		for _, b := range bounds {
			m.latencyBounds = append(m.latencyBounds, int64(b))
		}
		m.latencyBounds = sortedBounds(m.latencyBounds)
	}
}

// WithSizeBuckets sets the upper bounds, in bytes, of the
// request and response body size histograms' buckets (default: 0, 64,
// 256, 1 Ki, 4 Ki, ... 16 Mi: powers of 4).
func WithSizeBuckets(bounds ...int64) Option {
	return func(m *Metrics) { m.sizeBounds = sortedBounds(append([]int64(nil), bounds...)) }
}

// sortedBounds sorts bucket bounds and drops repeats: Observe scans them
// in order.
func sortedBounds(b []int64) []int64 {
	slices.Sort(b)
	return slices.Compact(b)
}

// New returns the metrics of app and installs them as its Observer
// (gwist.App.SetObserver): call it before app starts, once. Mount
// Handler to serve them, or register the Metrics in a registry of your own.
func New(app *gwist.App, opts ...Option) *Metrics {
	m := &Metrics{app: app, sizeBounds: []int64{0, 64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20}}
	for _, b := range tlsstate.HistogramBounds {
		m.latencyBounds = append(m.latencyBounds, int64(b))
	}
	for _, o := range opts {
		o(m)
	}
	if m.reg == nil {
		reg := prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		m.reg = reg
	}
	if m.gatherer == nil {
		g, ok := m.reg.(prometheus.Gatherer)
		if !ok {
			panic("metrics: WithRegistry: the Registerer is not a prometheus.Gatherer; pass the Gatherer to serve as well")
		}
		m.gatherer = g
	}
	m.reg.MustRegister(m)
	m.handler = promhttp.HandlerFor(m.gatherer, promhttp.HandlerOpts{})
	app.SetObserver(m)
	return m
}

// Handler serves the registry's metrics in the Prometheus text format (or
// OpenMetrics, as the scraper asks): mount it with
// app.GET("/metrics", m.Handler()). It goes through gwist.WrapHandler, so a
// scrape costs the allocations of a net/http request; requests that are
// not scrapes pay nothing for it.
func (m *Metrics) Handler() gwist.HandlerFunc { return gwist.WrapHandler(m.handler) }

// HTTPHandler is Handler as a net/http handler, to serve the metrics from
// another server (an admin port on net/http, say).
func (m *Metrics) HTTPHandler() http.Handler { return m.handler }

// Registry is the registry Handler serves when it is a
// *prometheus.Registry (its own, or the one given to WithRegistry), else
// nil: see Gatherer.
func (m *Metrics) Registry() *prometheus.Registry {
	r, _ := m.gatherer.(*prometheus.Registry)
	return r
}

// Gatherer is what Handler serves.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.gatherer }
