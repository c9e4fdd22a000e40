package gwist_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/metrics"
	"github.com/gwist/gwist/middleware"
)

// BenchmarkServeBareMetrics is BenchmarkServeBare with the metrics
// package's Observer: the difference is a request's cost of being counted.
// It must stay at 0 allocs/op.
func BenchmarkServeBareMetrics(b *testing.B) {
	app := gwist.New()
	app.GET("/users/:id", func(c *gwist.Ctx) error { return c.String(200, "Hello, World!") })
	metrics.New(app)
	benchServe(b, app, benchRequest, false)
}

// BenchmarkServeChainMetrics is BenchmarkServeChain with metrics on.
func BenchmarkServeChainMetrics(b *testing.B) {
	app := gwist.New()
	app.Use(middleware.RequestID(), middleware.AccessLog(slog.New(slog.NewTextHandler(io.Discard, nil))),
		middleware.Recover())
	app.GET("/users/:id", func(c *gwist.Ctx) error { return c.String(200, "Hello, World!") })
	metrics.New(app)
	benchServe(b, app, benchRequest, false)
}

// TestObserverAllocatesNothing pins the hook's promise outside the
// benchmarks (which only report): a request observed by the metrics
// package allocates nothing, matched or not.
func TestObserverAllocatesNothing(t *testing.T) {
	app := gwist.New()
	app.GET("/users/:id", func(c *gwist.Ctx) error { return c.String(200, "Hello, World!") })
	m := metrics.New(app)
	for _, raw := range []string{benchRequest, "GET /nope HTTP/1.1\r\nHost: a\r\n\r\n"} {
		ex := new(engine.Exchange)
		var p http1.Parser
		if _, ev, err := p.Parse(&ex.Request, []byte(raw)); err != nil || ev != http1.MessageComplete {
			t.Fatalf("parse: %v %v", ev, err)
		}
		serve := func() {
			ex.Status = 0
			ex.Header.Reset()
			ex.Body = ex.Body[:0]
			app.ServeExchange(ex)
		}
		serve()
		if n := testing.AllocsPerRun(200, serve); n != 0 {
			t.Errorf("%q: %v allocations per observed request, want 0", raw[:12], n)
		}
	}
	if m == nil {
		t.Fatal("no metrics")
	}
}

// benchServeParallel is benchServe on every P at once, each goroutine with
// its own Exchange: with metrics on, the goroutines add to the same
// route's counters, so this shows what sharing their cache lines costs.
func benchServeParallel(b *testing.B, app *gwist.App) {
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		ex := new(engine.Exchange)
		var p http1.Parser
		if _, ev, err := p.Parse(&ex.Request, []byte(benchRequest)); err != nil || ev != http1.MessageComplete {
			b.Errorf("parse: %v %v", ev, err)
			return
		}
		for pb.Next() {
			ex.Status = 0
			ex.Header.Reset()
			ex.Body = ex.Body[:0]
			app.ServeExchange(ex)
		}
	})
}

func BenchmarkServeBareParallel(b *testing.B) {
	app := gwist.New()
	app.GET("/users/:id", func(c *gwist.Ctx) error { return c.String(200, "Hello, World!") })
	benchServeParallel(b, app)
}

func BenchmarkServeBareMetricsParallel(b *testing.B) {
	app := gwist.New()
	app.GET("/users/:id", func(c *gwist.Ctx) error { return c.String(200, "Hello, World!") })
	metrics.New(app)
	benchServeParallel(b, app)
}
