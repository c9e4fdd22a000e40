package gwist_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// Response trailers from a wrapped handler, declared with the Trailer
// header and set with http.TrailerPrefix, buffered and streamed, over
// HTTP/1.1 (chunked) and HTTP/2, as net/http sends them.
func TestWrapHandlerTrailers(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", "X-Declared")
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(200)
		io.WriteString(w, "part one;")
		if r.URL.Query().Has("flush") {
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, "part two")
		w.Header().Set("X-Declared", "d1")
		w.Header().Add("X-Declared", "d2") // every value goes out (gRPC metadata repeats keys)
		w.Header().Set(http.TrailerPrefix+"X-Undeclared", "u1")
	})
	for _, ep := range bridgeEndpoints(t, h) {
		for _, q := range []string{"", "?flush"} {
			resp, err := ep.client.Get(ep.url + q)
			if err != nil {
				t.Fatalf("%s%s: %v", ep.name, q, err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(body) != "part one;part two" {
				t.Errorf("%s%s: body %q %v", ep.name, q, body, err)
			}
			if got := resp.Trailer.Values("X-Declared"); strings.Join(got, ",") != "d1,d2" {
				t.Errorf("%s%s: X-Declared trailer %q", ep.name, q, got)
			}
			if got := resp.Trailer.Get("X-Undeclared"); got != "u1" {
				t.Errorf("%s%s: X-Undeclared trailer %q", ep.name, q, got)
			}
		}
	}
}

// Flush sends what was written before the handler returns.
func TestWrapHandlerFlushReachesClient(t *testing.T) {
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first")
		if err := http.NewResponseController(w).Flush(); err != nil {
			t.Errorf("Flush: %v", err)
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	for _, ep := range bridgeEndpoints(t, h) {
		resp, err := ep.client.Get(ep.url)
		if err != nil {
			t.Fatalf("%s: %v", ep.name, err)
		}
		buf := make([]byte, 5)
		if _, err := io.ReadFull(resp.Body, buf); err != nil || string(buf) != "first" {
			t.Errorf("%s: %q %v", ep.name, buf, err)
		}
		release <- struct{}{}
		resp.Body.Close()
	}
}

// panic(http.ErrAbortHandler) cuts the response off, before and after its
// head went out: the client sees an error, never a complete response.
func TestWrapHandlerAbortHandler(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "partial body")
		if r.URL.Query().Has("flush") {
			w.(http.Flusher).Flush()
		}
		panic(http.ErrAbortHandler)
	})
	for _, ep := range bridgeEndpoints(t, h) {
		for _, q := range []string{"", "?flush"} {
			resp, err := ep.client.Get(ep.url + q)
			if err != nil {
				resp = nil
			}
			if err == nil {
				var body []byte
				body, err = io.ReadAll(resp.Body)
				resp.Body.Close()
				if err == nil {
					t.Errorf("%s%s: a complete response: %d %q", ep.name, q, resp.StatusCode, body)
					continue
				}
			}
			if ep.proto != "h1" && !strings.Contains(err.Error(), "INTERNAL_ERROR") {
				t.Errorf("%s%s: %v, want a stream reset (INTERNAL_ERROR)", ep.name, q, err)
			}
			if q == "" && resp != nil {
				// net/http sends nothing before the head went out: HTTP/1
				// closes the connection, HTTP/2 resets the stream with no
				// HEADERS before it.
				t.Errorf("%s%s: a response (%d) before the cut, want none", ep.name, q, resp.StatusCode)
			}
		}
	}
}

// chiTimeout is chi's middleware.Timeout (go-chi/chi/v5), verbatim but
// for the name: it answers 504 after next when the deadline passed.
func chiTimeout(timeout time.Duration) func(next http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		fn := func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithTimeout(r.Context(), timeout)
			defer func() {
				cancel()
				if ctx.Err() == context.DeadlineExceeded {
					w.WriteHeader(http.StatusGatewayTimeout)
				}
			}()
			r = r.WithContext(ctx)
			next.ServeHTTP(w, r)
		}
		return http.HandlerFunc(fn)
	}
}

// A response a net/http middleware writes itself after next (chi's
// Timeout: 504) reaches the client, whether the gwist handler returned the
// context's error or returned without writing.
func TestWrapMiddlewareAnswersAfterNext(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.Use(gwist.WrapMiddleware(chiTimeout(30 * time.Millisecond)))
	app.GET("/err", func(c *gwist.Ctx) error {
		<-c.Context().Done()
		return c.Context().Err()
	})
	app.GET("/silent", func(c *gwist.Ctx) error {
		c.SetHeader("X-Kept", "yes")
		<-c.Context().Done()
		return nil
	})
	app.GET("/wrapped", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done() // writes nothing, as a net/http handler that gave up
	}))
	app.GET("/fast", func(c *gwist.Ctx) error { return c.String(200, "fast") })
	app.GET("/fasterr", func(c *gwist.Ctx) error { return gwist.NewHTTPError(http.StatusTeapot, "teapot") })
	addr := startApp(t, app)
	c := newClient(t)
	for path, want := range map[string]int{"/err": 504, "/silent": 504, "/wrapped": 504, "/fast": 200, "/fasterr": 418} {
		resp, body := get(t, c, "http://"+addr+path)
		if resp.StatusCode != want {
			t.Errorf("%s: %d %q, want %d", path, resp.StatusCode, body, want)
		}
		if path == "/silent" && resp.Header.Get("X-Kept") != "yes" {
			t.Errorf("%s: the handler's header is lost: %v", path, resp.Header)
		}
	}
	_ = errors.New
}

// Over HTTP/1.1 a handler's panic(http.ErrAbortHandler) before its head
// went out sends nothing of its response (as net/http): the responses
// pipelined before it go out, then the connection closes.
func TestWrapHandlerAbortPipelined(t *testing.T) {
	app := gwist.New()
	app.GET("/ok", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	app.GET("/abort", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "never sent")
		panic(http.ErrAbortHandler)
	}))
	conn := dialRaw(t, startApp(t, app))
	conn.send("GET /ok HTTP/1.1\r\nHost: x\r\n\r\nGET /abort HTTP/1.1\r\nHost: x\r\n\r\nGET /ok HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, body := conn.readResponse("GET"); resp.StatusCode != 200 || body != "ok" {
		t.Fatalf("first: %d %q", resp.StatusCode, body)
	}
	conn.expectClosed()
}
