// Package middleware is gwist's middleware set: access log, recover,
// request ID, CORS, gzip, secure headers, per-client rate limit, per-route
// body limit and timeout. Each is a gwist.Middleware in a file of its own.
//
// A typical app-level chain, outermost first:
//
//	app.Use(
//		middleware.RequestID(),     // first: everything after it logs the ID
//		middleware.AccessLog(nil),  // sees the final status, size and duration
//		middleware.Recover(),       // inside the log: a panic is logged as a 500
//		middleware.Gzip(middleware.GzipConfig{}),
//		middleware.CORS(middleware.CORSConfig{AllowOrigins: []string{"https://app.example"}}),
//	)
//
// App-level middleware runs for every request, before routing, including
// the router's own answers (404, 405, automatic OPTIONS, redirects), so
// CORS answers preflights and the access log sees 404s. Per-route pieces
// (BodyLimit, Timeout, RateLimit for one endpoint) go on the route or its
// group.
package middleware
