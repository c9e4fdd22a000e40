package gwist_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"

	"github.com/gwist/gwist/internal/syncbuf"
)

// seen is what an app-level middleware observed after next returned.
type seen struct {
	method, path, route string
	status              int
	bytes               int64
	allow, location     string
	err                 string
}

// TestAppMiddlewareSeesEveryAnswer checks that App.Use middleware runs for
// the router's own answers (404, 405, automatic OPTIONS, trailing-slash
// redirect) and the error handler's, and reads their status, size and
// headers after next.
func TestAppMiddlewareSeesEveryAnswer(t *testing.T) {
	var mu sync.Mutex
	var log []seen
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.Use(func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			err := next(c)
			s := seen{method: c.Method(), path: c.Path(), route: c.Route(), status: c.ResponseStatus(),
				bytes: c.BytesWritten(), allow: c.ResponseHeader("Allow"), location: c.ResponseHeader("Location")}
			if err != nil {
				s.err = err.Error()
			}
			mu.Lock()
			log = append(log, s)
			mu.Unlock()
			return err
		}
	})
	app.GET("/items", func(c *gwist.Ctx) error { return c.String(200, "items") })
	app.GET("/teapot", func(c *gwist.Ctx) error { return gwist.NewHTTPError(418, "short and stout") })
	app.GET("/fail", func(c *gwist.Ctx) error { return errors.New("db down") })
	addr := startApp(t, app)
	client := newClient(t)
	do := func(method, path string) *http.Response {
		req, _ := http.NewRequest(method, "http://"+addr+path, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	cases := []struct {
		method, path string
		want         seen
	}{
		{"GET", "/items", seen{route: "/items", status: 200, bytes: 5}},
		{"GET", "/nope", seen{status: 404, bytes: int64(len("Not Found\n"))}},
		{"POST", "/items", seen{status: 405, bytes: int64(len("Method Not Allowed\n")), allow: "GET, HEAD, OPTIONS"}},
		{"OPTIONS", "/items", seen{status: 204, allow: "GET, HEAD, OPTIONS"}},
		{"GET", "/items/", seen{status: 301, location: "/items"}},
		{"GET", "/teapot", seen{route: "/teapot", status: 418, bytes: int64(len("short and stout\n")), err: "short and stout"}},
		{"GET", "/fail", seen{route: "/fail", status: 500, bytes: int64(len("Internal Server Error\n")), err: "db down"}},
	}
	for _, tc := range cases {
		resp := do(tc.method, tc.path)
		tc.want.method, tc.want.path = tc.method, tc.path
		mu.Lock()
		got := log[len(log)-1]
		mu.Unlock()
		if got != tc.want || resp.StatusCode != tc.want.status {
			t.Errorf("%s %s: client got %d, middleware saw %+v, want %+v", tc.method, tc.path, resp.StatusCode, got, tc.want)
		}
	}
}

// TestMiddlewareOrder pins the documented order: App.Use middleware before
// routing (also for a 404), then the group's, the route's, the handler.
func TestMiddlewareOrder(t *testing.T) {
	var mu sync.Mutex
	var trace []string
	mark := func(name string) gwist.Middleware {
		return func(next gwist.HandlerFunc) gwist.HandlerFunc {
			return func(c *gwist.Ctx) error {
				mu.Lock()
				trace = append(trace, name+"("+c.Route()+")")
				mu.Unlock()
				return next(c)
			}
		}
	}
	app := gwist.New()
	api := app.Group("/api", mark("group"))
	api.GET("/x", func(c *gwist.Ctx) error {
		mu.Lock()
		trace = append(trace, "handler")
		mu.Unlock()
		return c.String(200, "x")
	}, mark("route"))
	app.Use(mark("app1"), mark("app2"))
	addr := startApp(t, app)
	client := newClient(t)
	check := func(path, want string) {
		t.Helper()
		mu.Lock()
		trace = nil
		mu.Unlock()
		get(t, client, "http://"+addr+path)
		mu.Lock()
		defer mu.Unlock()
		if got := strings.Join(trace, " "); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	check("/api/x", "app1() app2() group(/api/x) route(/api/x) handler")
	check("/api/nope", "app1() app2()")
}

// TestSetGetAndSetContext checks request-scoped values and a replaced
// context: values reach the handler and are gone at the next request; a
// context not derived from the request's still sees the client leave.
func TestSetGetAndSetContext(t *testing.T) {
	type key struct{}
	cancelled := make(chan error, 1)
	app := gwist.New()
	inline := gwist.New(gwist.WithInline(true)) // same goroutine: its pooled Ctx comes back
	mw := func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			if c.Get("user") != nil {
				return c.String(500, "value leaked from an earlier request")
			}
			if c.Query("set") != "" {
				c.Set("user", c.Query("set"))
			}
			if c.Path() == "/wait" {
				// Not derived from c.Context(): the link to the client's
				// close must be added by SetContext.
				c.SetContext(context.WithValue(context.Background(), key{}, "v"))
			} else {
				c.SetContext(context.WithValue(c.Context(), key{}, "derived"))
			}
			return next(c)
		}
	}
	who := func(c *gwist.Ctx) error {
		u, _ := c.Get("user").(string)
		return c.String(200, u+"|"+fmt.Sprint(c.Context().Value(key{})))
	}
	app.Use(mw)
	inline.Use(mw)
	app.GET("/who", who)
	inline.GET("/who", who)
	waiting := make(chan struct{})
	app.GET("/wait", func(c *gwist.Ctx) error {
		close(waiting)
		select {
		case <-c.Context().Done():
			cancelled <- c.Context().Err()
		case <-time.After(5 * time.Second):
			cancelled <- errors.New("context not cancelled after the client left")
		}
		return nil
	})
	addr := startApp(t, app)
	client := newClient(t)
	for _, a := range []string{addr, startApp(t, inline)} {
		for i := range 5 {
			if _, body := get(t, client, "http://"+a+"/who?set=ann"); body != "ann|derived" {
				t.Fatalf("%d: with a value: %q", i, body)
			}
			if _, body := get(t, client, "http://"+a+"/who"); body != "|derived" {
				t.Fatalf("%d: next request: %q", i, body)
			}
		}
	}
	rc := dialRaw(t, addr)
	rc.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
	<-waiting // the handler runs: the client leaves during it
	rc.c.Close()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Fatalf("handler's context after the client left: %v", err)
	}
}

// TestPanicGoesThroughErrorHandler checks the last-resort recovery: the
// panic is answered by the error handler, headers middleware set before it
// stay, the handler's body and Content-Type go, and the log line carries
// the request's fields.
func TestPanicGoesThroughErrorHandler(t *testing.T) {
	logBuf := new(syncBuffer)
	logger := slog.New(slog.NewTextHandler(logBuf, nil))
	app := gwist.New(gwist.WithLogger(logger), gwist.WithErrorHandler(func(c *gwist.Ctx, err error) {
		var pe *gwist.PanicError
		if errors.As(err, &pe) {
			_ = c.String(500, fmt.Sprintf("custom: %v", pe.Value))
			return
		}
		gwist.DefaultErrorHandler(c, err)
	}))
	app.Use(func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			c.Set(gwist.RequestIDKey, "req-42")
			c.SetHeader("X-Request-ID", "req-42")
			return next(c)
		}
	})
	app.GET("/boom/:id", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Type", "application/json")
		_, _ = c.Write([]byte(`{"half":`))
		panic("boom")
	})
	addr := startApp(t, app)
	resp, body := get(t, newClient(t), "http://"+addr+"/boom/7")
	if resp.StatusCode != 500 || body != "custom: boom" || resp.Header.Get("X-Request-ID") != "req-42" ||
		resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("got %d %q %v", resp.StatusCode, body, resp.Header)
	}
	line := logBuf.String()
	for _, want := range []string{"handler panic", "method=GET", "path=/boom/7", "route=/boom/:id", "remote=127.0.0.1:",
		"request_id=req-42", "panic=boom", "stack="} {
		if !strings.Contains(line, want) {
			t.Errorf("log line lacks %q: %s", want, line)
		}
	}
}

// syncBuffer is a log or output sink read while it is written.
type syncBuffer = syncbuf.Buffer

// upperWriter is a body writer that upper-cases what goes through it.
type upperWriter struct {
	next gwist.BodyWriter
	buf  []byte
}

func (u *upperWriter) Write(p []byte) (int, error) {
	u.buf = append(u.buf[:0], bytes.ToUpper(p)...)
	return u.next.Write(u.buf)
}
func (u *upperWriter) Flush() error { return u.next.Flush() }

// TestSetWriterWrapsBufferedAndStreamedBodies checks that a middleware's
// body writer sees String's body and a streamed body (Write past the
// threshold, Flush), and that the client gets what it wrote.
func TestSetWriterWrapsBufferedAndStreamedBodies(t *testing.T) {
	app := gwist.New(gwist.WithStreamThreshold(1024))
	app.Use(func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			prev := c.Writer()
			c.SetWriter(&upperWriter{next: prev})
			defer c.SetWriter(prev)
			return next(c)
		}
	})
	app.GET("/small", func(c *gwist.Ctx) error { return c.String(200, "hello") })
	app.GET("/stream", func(c *gwist.Ctx) error {
		for i := 0; i < 100; i++ {
			if _, err := c.Write([]byte(strings.Repeat("abc", 100))); err != nil {
				return err
			}
			if i == 0 {
				if err := c.Flush(); err != nil {
					return err
				}
			}
		}
		return nil
	})
	app.GET("/missing-is-upper-too", func(c *gwist.Ctx) error { return gwist.NewHTTPError(404, "gone") })
	addr := startApp(t, app)
	client := newClient(t)
	if resp, body := get(t, client, "http://"+addr+"/small"); body != "HELLO" || resp.ContentLength != 5 {
		t.Fatalf("small: %q (len %d)", body, resp.ContentLength)
	}
	resp, body := get(t, client, "http://"+addr+"/stream")
	if body != strings.Repeat("ABC", 10000) || resp.ContentLength != -1 {
		t.Fatalf("stream: %d bytes (Content-Length %d), %q...", len(body), resp.ContentLength, body[:min(len(body), 20)])
	}
	if _, body := get(t, client, "http://"+addr+"/missing-is-upper-too"); body != "GONE\n" {
		t.Fatalf("error answer: %q", body)
	}
}
