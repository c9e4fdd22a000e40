package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// A trace of a request: with a TracerProvider set (main does it with
// -trace), a POST is a server span named by its route that continues the
// caller's trace, with the handler's store.create span inside it.
func TestTraceOfARequest(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	defer otel.SetTracerProvider(prev)

	app, _ := newApp(quietLogger(), "http://localhost:3000")
	srv := httptest.NewServer(app)
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/api/todos", strings.NewReader(`{"title":"traced"}`))
	req.Header.Set("Content-Type", jsonType)
	req.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	spans := map[string]tracetest.SpanStub{}
	for _, s := range exp.GetSpans() {
		spans[s.Name] = s
	}
	server, inner := spans["POST /api/todos"], spans["store.create"]
	if server.SpanContext.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" ||
		inner.Parent.SpanID() != server.SpanContext.SpanID() {
		t.Fatalf("spans: %v", exp.GetSpans())
	}
	var b strings.Builder
	logExporter{slogTo(&b)}.ExportSpans(context.Background(), []sdktrace.ReadOnlySpan{server.Snapshot()})
	if line := b.String(); !strings.Contains(line, "name=\"POST /api/todos\"") || !strings.Contains(line, "http.route=/api/todos") ||
		!strings.Contains(line, "http.response.status_code=201") {
		t.Fatalf("the span's log line: %s", line)
	}
}

func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }
