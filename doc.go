// Package gwist is a web framework on an epoll event loop (gnet): HTTP/1.1,
// HTTP/2 and WebSocket on the same loops, with net/http's semantics where
// it has them.
//
//	app := gwist.New()
//	app.GET("/users/:id", func(c *gwist.Ctx) error {
//		return c.JSON(200, map[string]string{"id": c.Param("id")})
//	})
//	log.Fatal(app.Listen("127.0.0.1:8080"))
//
// # Handlers, middleware, routes
//
// A handler is a HandlerFunc, a function of a *Ctx that returns an error:
// nil once it has answered, an *HTTPError for a status of its choice, any
// other error for a 500. Every error, and every answer gwist makes itself
// (404, 405, 413, 503, redirects), goes through one ErrorHandler
// (WithErrorHandler; JSONErrorHandler for APIs). A Middleware wraps a
// HandlerFunc; App.Use adds it around every request, before routing, and
// Group and the route methods (GET, POST, ...) around their routes only.
// Requests are parsed on
// the event loop and handled on a bounded worker pool (WithWorkers), or on
// the loop itself with WithInline.
//
// # Request values
//
// Every string and slice a handler gets from a Ctx (Param, Query, Header,
// Path, Body, Request and the rest) is its own copy: it may be kept, sent
// to another goroutine or logged after the handler returns. The Unsafe
// accessors (UnsafePath, UnsafeParam, UnsafeQuery, UnsafeHeader,
// UnsafeBody, UnsafeRequest) are the zero-copy exceptions: their values
// point into pooled buffers and are valid only until the handler returns.
//
// # Serving
//
// Start and Listen serve plaintext, StartTLS and ListenTLS HTTPS,
// StartAutoTLS and ListenAutoTLS HTTPS with ACME certificates; each takes
// ListenOptions (ReusePort, ProxyProtocol). TLS listeners speak h2 too
// (ALPN), unless WithHTTP2(false); WithHTTP2(true) adds h2c on plaintext
// ones; WithHTTP2Limits sets HTTP/2's limits.
// Shutdown drains. The App is also an http.Handler (ServeHTTP), so
// net/http/httptest tests it, and WrapHandler and WrapMiddleware mount
// net/http code on its routes.
//
// # Guides
//
// The repository's docs/ directory has one guide per topic: routing.md,
// handlers.md (binding, validation, errors, templates), middleware.md,
// streaming-and-sse.md, websocket.md, nethttp.md, static-files.md,
// https.md, http2.md, operations.md (limits, shutdown, health, PROXY
// protocol, metrics, tracing, hostile clients), performance.md, and
// options.md, the reference of every option with its default and what a
// breach does. Measured figures are in benchmarks/RESULTS.md.
package gwist
