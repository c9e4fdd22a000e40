// Package tracing traces a gwist App's requests with OpenTelemetry: one
// server span per request, named by the route's pattern ("GET
// /todos/:id", with the http.route attribute), with the status, the
// error, and the W3C trace context of the caller (traceparent,
// tracestate; and baggage with the default propagators), over HTTP/1.1,
// HTTP/2 and WebSocket handshakes alike.
//
//	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter))
//	app.Use(tracing.Middleware(tracing.WithTracerProvider(tp)))
//
// It is app-level middleware: add it first with App.Use, so that its span
// covers the other middleware and the router's own answers (404, 405),
// and the span is in c.Context() for the handlers (a child span, an
// outgoing request that propagates it). Routing happens inside it, so the
// span starts as "GET" and is renamed once the route is known; a request
// no route matched keeps the method alone as its name (a bounded set of
// names, as the semantic conventions ask).
//
// Like the metrics package, this one is apart from the core so that a
// program that does not trace does not link OpenTelemetry. When tracing
// is off (no TracerProvider set globally and none given, or a no-op one)
// the middleware passes the request through and costs no allocation.
package tracing
