package tracing_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/tracing"
)

// Trace every request: spans are named by the route and continue the
// caller's trace (W3C traceparent). Here they go to the SDK's in-memory
// exporter; a real program uses an OTLP exporter with WithBatcher.
func ExampleMiddleware() {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())

	app := gwist.New()
	app.Use(tracing.Middleware(tracing.WithTracerProvider(tp))) // first: its span covers the rest
	app.GET("/todos/:id", func(c *gwist.Ctx) error { return c.String(200, "todo "+c.Param("id")) })
	srv := httptest.NewServer(app)
	defer srv.Close()

	req, _ := http.NewRequest("GET", srv.URL+"/todos/7", nil)
	req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	for _, s := range exp.GetSpans() {
		route := ""
		for _, kv := range s.Attributes {
			if kv.Key == "http.route" {
				route = kv.Value.AsString()
			}
		}
		fmt.Println(s.Name, route, s.SpanContext.TraceID(), s.Parent.SpanID())
	}
	// Output: GET /todos/:id /todos/:id 4bf92f3577b34da6a3ce929d0e0e4736 00f067aa0ba902b7
}
