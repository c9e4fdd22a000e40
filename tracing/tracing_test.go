package tracing_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/tracing"
	"github.com/gwist/gwist/websocket"
	"github.com/gwist/gwist/websocket/wsclient"
)

func TestMain(m *testing.M) {
	// IgnoreCurrent: gnet starts its own package-level goroutine pool at init.
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}

// tracedApp serves a few routes traced into exp.
func tracedApp(t *testing.T, exp *tracetest.InMemoryExporter) (*gwist.App, trace.Tracer) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	inner := tp.Tracer("handler")
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(slog.New(slog.DiscardHandler)))
	app.Use(tracing.Middleware(tracing.WithTracerProvider(tp)))
	app.GET("/todos/:id", func(c *gwist.Ctx) error {
		_, span := inner.Start(c.Context(), "load todo") // a child of the server span
		span.End()
		return c.String(200, "todo "+c.Param("id"))
	})
	app.GET("/fail", func(c *gwist.Ctx) error { return errors.New("the database is down") })
	app.GET("/teapot", func(c *gwist.Ctx) error { return gwist.NewHTTPError(418, "") })
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{}))
	return app, inner
}

// spanNamed waits for the ended span called name.
func spanNamed(t *testing.T, exp *tracetest.InMemoryExporter, name string) tracetest.SpanStub {
	t.Helper()
	var found tracetest.SpanStub
	if !testkit.Eventually(5*time.Second, func() bool {
		for _, s := range exp.GetSpans() {
			if s.Name == name {
				found = s
				return true
			}
		}
		return false
	}) {
		var names []string
		for _, s := range exp.GetSpans() {
			names = append(names, s.Name)
		}
		t.Fatalf("no span %q among %q", name, names)
	}
	return found
}

func attrs(s tracetest.SpanStub) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range s.Attributes {
		m[kv.Key] = kv.Value
	}
	return m
}

// Spans are named by the route, carry http.route and the status, continue
// the caller's W3C trace context, and hold the handler's spans as
// children; over HTTP/1.1 and h2c.
func TestServerSpans(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	app, _ := tracedApp(t, exp)
	base := "http://" + testkit.Serve(t, func() (net.Addr, error) { return app.Start("127.0.0.1:0") }, app.Shutdown)
	clients := map[string]*http.Client{"1.1": testkit.Client(t, testkit.H1(nil)), "2": testkit.Client(t, testkit.H2C())}
	for version, cl := range clients {
		exp.Reset()
		parent := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
		req, _ := http.NewRequest("GET", base+"/todos/42", nil)
		req.Header.Set("Traceparent", parent)
		req.Header.Set("User-Agent", "tracing-test")
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()

		s := spanNamed(t, exp, "GET /todos/:id")
		a := attrs(s)
		if s.SpanKind != trace.SpanKindServer || s.SpanContext.TraceID().String() != "4bf92f3577b34da6a3ce929d0e0e4736" ||
			s.Parent.SpanID().String() != "00f067aa0ba902b7" || !s.Parent.IsRemote() {
			t.Fatalf("HTTP/%s: span %+v does not continue the caller's trace", version, s.SpanContext)
		}
		for k, want := range map[attribute.Key]string{"http.route": "/todos/:id", "http.request.method": "GET",
			"url.path": "/todos/42", "url.scheme": "http", "network.protocol.version": version,
			"user_agent.original": "tracing-test", "client.address": "127.0.0.1", "server.address": "127.0.0.1"} {
			if got := a[k].Emit(); got != want {
				t.Errorf("HTTP/%s: %s = %q, want %q", version, k, got, want)
			}
		}
		if a["http.response.status_code"].AsInt64() != 200 || s.Status.Code == codes.Error {
			t.Errorf("HTTP/%s: status %v %v", version, a["http.response.status_code"], s.Status)
		}
		child := spanNamed(t, exp, "load todo")
		if child.Parent.SpanID() != s.SpanContext.SpanID() {
			t.Errorf("HTTP/%s: the handler's span is not the server span's child", version)
		}
	}

	exp.Reset()
	for _, path := range []string{"/fail", "/teapot", "/nope"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	fail := spanNamed(t, exp, "GET /fail")
	if fail.Status.Code != codes.Error || attrs(fail)["error.type"].AsString() != "errors.errorString" ||
		len(fail.Events) == 0 || attrs(fail)["http.response.status_code"].AsInt64() != 500 {
		t.Errorf("a 500: %+v %v %v", fail.Status, fail.Attributes, fail.Events)
	}
	teapot := spanNamed(t, exp, "GET /teapot")
	if teapot.Status.Code == codes.Error || attrs(teapot)["http.response.status_code"].AsInt64() != 418 {
		t.Errorf("a 4xx is not a server error: %+v", teapot.Status)
	}
	nope := spanNamed(t, exp, "GET") // no route: the method alone, no http.route
	if _, ok := attrs(nope)["http.route"]; ok || attrs(nope)["http.response.status_code"].AsInt64() != 404 {
		t.Errorf("a 404: %v", nope.Attributes)
	}
}

// A WebSocket handshake is a span too: 101, named by its route; also
// under httptest (ServeHTTP), with the trace context of the caller.
func TestWebSocketHandshakeSpan(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	app, _ := tracedApp(t, exp)
	srv := httptest.NewServer(app)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h := http.Header{}
	h.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	c, _, err := wsclient.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+"/ws", &wsclient.Options{Header: h})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(websocket.CloseNormal, "")
	s := spanNamed(t, exp, "GET /ws")
	if a := attrs(s); a["http.response.status_code"].AsInt64() != 101 || !a["gwist.websocket"].AsBool() ||
		s.SpanContext.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" {
		t.Fatalf("handshake span: %v %v", s.SpanContext.TraceID(), s.Attributes)
	}
}

// With no TracerProvider set the middleware passes requests through at no
// cost: the same allocations per request as without it. Once one is set
// globally, it traces.
func TestOffCostsNothing(t *testing.T) {
	plain, traced := gwist.New(), gwist.New()
	traced.Use(tracing.Middleware())
	for _, app := range []*gwist.App{plain, traced} {
		app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	}
	allocs := func(app *gwist.App) float64 {
		req := httptest.NewRequest("GET", "/", nil)
		w := httptest.NewRecorder()
		return testing.AllocsPerRun(200, func() { w.Body.Reset(); app.ServeHTTP(w, req) })
	}
	if a, b := allocs(plain), allocs(traced); a != b && !raceEnabled {
		t.Fatalf("tracing off costs %v allocations per request, want 0 (%v without it)", b-a, a)
	}

	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	defer tp.Shutdown(context.Background())
	prev, prevProp := otel.GetTracerProvider(), otel.GetTextMapPropagator()
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	defer func() { otel.SetTracerProvider(prev); otel.SetTextMapPropagator(prevProp) }()
	traced.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/", nil))
	spanNamed(t, exp, "GET /")
}

// The core packages do not import OpenTelemetry: only programs that import
// tracing link it.
func TestCoreDoesNotLinkOpenTelemetry(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/gwist/gwist", "github.com/gwist/gwist/middleware").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v: %s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "opentelemetry") {
			t.Errorf("the core depends on %s", p)
		}
	}
}
