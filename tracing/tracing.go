package tracing

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/gwist/gwist"
)

// ScopeName is the instrumentation scope of the spans (the tracer's name).
const ScopeName = "github.com/gwist/gwist/tracing"

// Option configures Middleware.
type Option func(*config)

type config struct {
	tp          trace.TracerProvider
	propagators propagation.TextMapPropagator
}

// WithTracerProvider sets the provider of the tracer (default: the
// global one, otel.GetTracerProvider(), looked up per request so that one
// set after the App was built is used).
func WithTracerProvider(tp trace.TracerProvider) Option { return func(c *config) { c.tp = tp } }

// WithPropagators sets how the caller's trace context is read from the
// request headers (default: the global propagators, otel.GetTextMapPropagator(),
// or W3C trace context and baggage when none were set).
func WithPropagators(p propagation.TextMapPropagator) Option {
	return func(c *config) { c.propagators = p }
}

// defaultGlobal is the global TracerProvider before any was set: while it
// is still the global one, tracing is off.
var defaultGlobal = otel.GetTracerProvider()

// Middleware returns the app-level middleware that traces requests (see
// the package documentation). Add it with App.Use, first.
func Middleware(opts ...Option) gwist.Middleware {
	cfg := config{}
	for _, o := range opts {
		o(&cfg)
	}
	if _, ok := cfg.tp.(noop.TracerProvider); ok {
		return func(next gwist.HandlerFunc) gwist.HandlerFunc { return next }
	}
	t := &tracer{cfg: cfg}
	if cfg.tp != nil {
		t.fixed = cfg.tp.Tracer(ScopeName)
	}
	return func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error { return t.serve(c, next) }
	}
}

// tracer is one Middleware's state.
type tracer struct {
	cfg   config
	fixed trace.Tracer // from WithTracerProvider; nil: the global provider's
}

// otelTracer returns the tracer to use for this request, or nil when
// tracing is off.
func (t *tracer) otelTracer() trace.Tracer {
	if t.fixed != nil {
		return t.fixed
	}
	tp := otel.GetTracerProvider()
	if tp == defaultGlobal {
		return nil
	}
	if _, ok := tp.(noop.TracerProvider); ok {
		return nil
	}
	return tp.Tracer(ScopeName)
}

func (t *tracer) propagators() propagation.TextMapPropagator {
	if t.cfg.propagators != nil {
		return t.cfg.propagators
	}
	if p := otel.GetTextMapPropagator(); len(p.Fields()) > 0 {
		return p
	}
	return defaultPropagators
}

var defaultPropagators = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// serve runs next inside the request's server span.
func (t *tracer) serve(c *gwist.Ctx, next gwist.HandlerFunc) error {
	tr := t.otelTracer()
	if tr == nil {
		return next(c)
	}
	ctx := t.propagators().Extract(c.Context(), headerCarrier{c})
	method := c.Method()
	ctx, span := tr.Start(ctx, method, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(requestAttributes(c, method)...))
	defer span.End()
	c.SetContext(ctx)
	err := next(c)

	status := c.ResponseStatus()
	if route := c.Route(); route != "" {
		span.SetName(method + " " + route)
		span.SetAttributes(semconv.HTTPRoute(route))
	}
	span.SetAttributes(semconv.HTTPResponseStatusCode(status))
	if isUpgrade(c, status) {
		span.SetAttributes(attribute.Bool("gwist.websocket", true))
	}
	var he *gwist.HTTPError
	switch {
	case status >= 500:
		span.SetStatus(codes.Error, http.StatusText(status))
		if err != nil && !errors.As(err, &he) {
			span.RecordError(err)
			span.SetAttributes(semconv.ErrorTypeKey.String(errorType(err)))
		} else {
			span.SetAttributes(semconv.ErrorTypeKey.String(strconv.Itoa(status)))
		}
	case err != nil && !errors.As(err, &he):
		span.RecordError(err) // answered below 500 by the error handler: recorded, not an error of the span
	}
	return err
}

// requestAttributes are the span's attributes known before routing.
func requestAttributes(c *gwist.Ctx, method string) []attribute.KeyValue {
	req := c.UnsafeRequest()
	scheme := "http"
	if c.TLS() != nil {
		scheme = "https"
	}
	version := "1.1"
	switch {
	case req.ProtoMajor == 2:
		version = "2"
	case req.ProtoMinor == 0:
		version = "1.0"
	}
	attrs := []attribute.KeyValue{
		methodAttr(method),
		semconv.URLPath(c.Path()),
		semconv.URLScheme(scheme),
		semconv.NetworkProtocolVersion(version),
	}
	if host := req.Host; host != "" {
		h, port, err := net.SplitHostPort(host)
		if err != nil {
			h, port = host, ""
		}
		attrs = append(attrs, semconv.ServerAddress(strings.Clone(h)))
		if p, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, semconv.ServerPort(p))
		}
	}
	if ra := c.RemoteAddr(); ra != nil {
		if ip, _, err := net.SplitHostPort(ra.String()); err == nil {
			attrs = append(attrs, semconv.ClientAddress(ip))
		}
	}
	if ua := c.Header("User-Agent"); ua != "" {
		attrs = append(attrs, semconv.UserAgentOriginal(ua))
	}
	return attrs
}

// methodAttr is http.request.method: the method, or _OTHER for one the
// semantic conventions do not know (a bounded set of values).
func methodAttr(m string) attribute.KeyValue {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE":
		return semconv.HTTPRequestMethodKey.String(m)
	}
	return semconv.HTTPRequestMethodOther
}

// isUpgrade: the request was a WebSocket handshake the handler accepted.
func isUpgrade(c *gwist.Ctx, status int) bool {
	return status == http.StatusSwitchingProtocols ||
		c.UnsafeRequest().ProtoMajor == 2 && c.Method() == http.MethodConnect && status == 200
}

// errorType is error.type for an error: its Go type ("errors.errorString").
func errorType(err error) string { return strings.TrimPrefix(typeName(err), "*") }
