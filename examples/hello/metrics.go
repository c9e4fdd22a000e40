package main

import (
	"flag"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/metrics"
)

var metricsOn = flag.Bool("metrics", true, "serve Prometheus metrics at GET /metrics (off: no /metrics route and no per-request observer)")

// metricsRoute mounts GET /metrics (the metrics package's exposition of the
// App's counters) unless -metrics=false, which leaves the App without the
// per-request observer: the benchmarks compare the two in one binary.
func metricsRoute(app *gwist.App) {
	if *metricsOn {
		app.GET("/metrics", metrics.New(app).Handler())
	}
}
