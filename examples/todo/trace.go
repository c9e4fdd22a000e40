package main

import (
	"context"
	"log/slog"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// logExporter writes each ended span as one log line, to show a request's
// trace without a collector: the server span (named by the route, with
// the caller's trace ID when it sent a traceparent) and the handler's
// child spans. A real service exports to a collector instead
// (go.opentelemetry.io/otel/exporters/otlp/otlptrace, with
// sdktrace.WithBatcher).
type logExporter struct{ logger *slog.Logger }

// ExportSpans logs the spans.
func (e logExporter) ExportSpans(_ context.Context, spans []sdktrace.ReadOnlySpan) error {
	for _, s := range spans {
		attrs := []slog.Attr{
			slog.String("name", s.Name()),
			slog.String("trace_id", s.SpanContext().TraceID().String()),
			slog.String("span_id", s.SpanContext().SpanID().String()),
			slog.Duration("duration", s.EndTime().Sub(s.StartTime())),
		}
		if p := s.Parent(); p.IsValid() {
			attrs = append(attrs, slog.String("parent_id", p.SpanID().String()))
		}
		for _, kv := range s.Attributes() {
			if kv.Key == "http.route" || kv.Key == "http.response.status_code" {
				attrs = append(attrs, slog.String(string(kv.Key), kv.Value.Emit()))
			}
		}
		e.logger.LogAttrs(context.Background(), slog.LevelInfo, "todo: span", attrs...)
	}
	return nil
}

// Shutdown does nothing: there is nothing to flush.
func (logExporter) Shutdown(context.Context) error { return nil }
