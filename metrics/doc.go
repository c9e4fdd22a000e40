// Package metrics exports a gwist App's statistics in the Prometheus
// format: requests by route pattern, method, status class and protocol,
// their latency and body sizes, open connections, TLS handshakes and their
// phase timings, the worker pool and HTTP/2 streams.
//
//	m := metrics.New(app)
//	app.GET("/metrics", m.Handler())
//
// New installs an Observer on the App (gwist.App.SetObserver). Every
// request updates a few atomic counters chosen by the index of its route,
// fixed when the App starts: no label lookup, no lock and no allocation
// per request. Everything else (connections, handshakes, workers, HTTP/2)
// is read from App.Stats when /metrics is scraped, and the exposition is
// built then from these counters (Metrics is a prometheus.Collector).
//
// Label values are bounded: the route label is the route's pattern as
// registered, never the request's path (requests no route matched are
// "<unmatched>"), method is one of the standard methods or "OTHER", and
// status is the class ("2xx"). A program that does not import this package
// does not link client_golang.
package metrics
