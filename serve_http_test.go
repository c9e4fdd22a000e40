package gwist_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gwist/gwist"
)

// App.ServeHTTP with httptest.NewRecorder: the same router, middleware and
// error handler as on gwist's own listeners, without the event loop.

func recorderApp(t *testing.T, log *[]string) *gwist.App {
	t.Helper()
	app := gwist.New(gwist.WithLogger(discardLogger()), gwist.WithErrorHandler(func(c *gwist.Ctx, err error) {
		var he *gwist.HTTPError
		code := 500
		if errors.As(err, &he) {
			code = he.Code
		}
		_ = c.JSON(code, map[string]string{"error": err.Error()})
	}))
	app.Use(func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			c.SetHeader("X-Mw", "1")
			err := next(c)
			*log = append(*log, c.Method()+" "+c.Path()+" "+c.Route()+" "+http.StatusText(c.ResponseStatus()))
			return err
		}
	})
	app.GET("/users/:id", func(c *gwist.Ctx) error {
		return c.JSON(200, map[string]string{"id": c.Param("id"), "q": c.Query("q"),
			"ua": c.Header("User-Agent"), "remote": c.RemoteAddr().String()})
	})
	app.POST("/users", func(c *gwist.Ctx) error {
		return c.Bytes(201, "text/plain", c.Body())
	})
	app.GET("/teapot", func(c *gwist.Ctx) error { return gwist.NewHTTPError(418, "short and stout") })
	app.GET("/panic", func(c *gwist.Ctx) error { panic("boom") })
	return app
}

func TestServeHTTPRecorder(t *testing.T) {
	var log []string
	app := recorderApp(t, &log)

	req := httptest.NewRequest("GET", "/users/42?q=a%20b", nil)
	req.Header.Set("User-Agent", "rec")
	w := httptest.NewRecorder()
	app.ServeHTTP(w, req)
	if w.Code != 200 || w.Header().Get("X-Mw") != "1" || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("GET: %d %v", w.Code, w.Header())
	}
	want := `{"id":"42","q":"a b","remote":"192.0.2.1:1234","ua":"rec"}` + "\n"
	if w.Body.String() != want || w.Header().Get("Content-Length") != "59" {
		t.Fatalf("body %q (Content-Length %q), want %q", w.Body.String(), w.Header().Get("Content-Length"), want)
	}

	w = httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("POST", "/users", strings.NewReader("name=x")))
	if w.Code != 201 || w.Body.String() != "name=x" {
		t.Fatalf("POST: %d %q", w.Code, w.Body.String())
	}

	w = httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("GET", "/nope", nil))
	if w.Code != 404 || w.Header().Get("X-Mw") != "1" {
		t.Fatalf("404: %d %v", w.Code, w.Header())
	}

	w = httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("DELETE", "/users/1", nil))
	if w.Code != 405 || w.Header().Get("Allow") != "GET, HEAD" && w.Header().Get("Allow") != "GET, HEAD, OPTIONS" {
		t.Fatalf("405: %d Allow %q", w.Code, w.Header().Get("Allow"))
	}

	w = httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("GET", "/teapot", nil))
	if w.Code != 418 || !strings.Contains(w.Body.String(), "short and stout") {
		t.Fatalf("error handler: %d %q", w.Code, w.Body.String())
	}

	w = httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("GET", "/panic", nil))
	if w.Code != 500 || w.Header().Get("X-Mw") != "1" {
		t.Fatalf("panic: %d %v %q", w.Code, w.Header(), w.Body.String())
	}

	w = httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("HEAD", "/users/7", nil))
	getLen := len(`{"id":"7","q":"","remote":"192.0.2.1:1234","ua":""}` + "\n")
	if w.Code != 200 || w.Body.Len() != 0 || w.Header().Get("Content-Length") != strconv.Itoa(getLen) {
		t.Fatalf("HEAD: %d %q Content-Length %q", w.Code, w.Body.String(), w.Header().Get("Content-Length"))
	}

	wantLog := []string{"GET /users/42 /users/:id OK", "POST /users /users Created", "GET /nope  Not Found",
		"DELETE /users/1  Method Not Allowed", "GET /teapot /teapot I'm a teapot", "HEAD /users/7 /users/:id OK"}
	if strings.Join(log, "|") != strings.Join(wantLog, "|") {
		t.Fatalf("middleware saw\n%q\nwant\n%q", log, wantLog)
	}
}

func TestServeHTTPBodyLimit(t *testing.T) {
	app := gwist.New(gwist.WithMaxBodyBytes(10))
	called := false
	app.POST("/", func(c *gwist.Ctx) error { called = true; return c.NoContent(204) })
	for _, body := range []io.Reader{strings.NewReader("01234567890"), io.MultiReader(strings.NewReader("0123456789"), strings.NewReader("x"))} {
		w := httptest.NewRecorder()
		app.ServeHTTP(w, httptest.NewRequest("POST", "/", body))
		if w.Code != 413 || called {
			t.Fatalf("over the limit: %d, handler called %v", w.Code, called)
		}
	}
	w := httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("POST", "/", strings.NewReader("0123456789")))
	if w.Code != 204 || !called {
		t.Fatalf("at the limit: %d", w.Code)
	}
}

// streamApp streams two chunks; the second is written only once the test
// has read the first, so the test fails unless the first was sent on Flush.
func httpStreamApp(gate chan struct{}) *gwist.App {
	app := gwist.New()
	app.GET("/stream", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Type", "text/plain")
		if _, err := c.Write([]byte("first\n")); err != nil {
			return err
		}
		if err := c.Flush(); err != nil {
			return err
		}
		select {
		case <-gate:
		case <-time.After(5 * time.Second):
			return errors.New("the client never saw the first chunk")
		}
		c.SetTrailer("X-Done", "yes")
		_, err := c.Write([]byte("second\n"))
		return err
	})
	app.POST("/echo", func(c *gwist.Ctx) error {
		return c.String(200, c.FormValue("a")+"|"+c.Header("Content-Type"))
	})
	app.GET("/cookie", func(c *gwist.Ctx) error {
		v, err := c.Cookie("in")
		if err != nil {
			return err
		}
		c.SetCookie(&http.Cookie{Name: "out", Value: "got-" + v.Value, Path: "/", HttpOnly: true})
		return c.NoContent(204)
	})
	app.GET("/sse", func(c *gwist.Ctx) error {
		return c.SSE(func(s *gwist.SSE) error {
			for i := range 2 {
				if err := s.Send(gwist.SSEEvent{ID: string(rune('1' + i)), Data: "tick"}); err != nil {
					return err
				}
				select {
				case <-gate:
				case <-s.Done():
					return nil
				}
			}
			return nil
		})
	})
	app.GET("/ctx", func(c *gwist.Ctx) error {
		v, _ := c.Context().Value(ctxKey{}).(string)
		return c.String(200, v)
	})
	return app
}

type ctxKey struct{}

func TestServeHTTPServerStreams(t *testing.T) {
	gate := make(chan struct{})
	srv := httptest.NewServer(httpStreamApp(gate))
	defer srv.Close()
	client := newClient(t)

	resp, err := client.Get(srv.URL + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	line, err := br.ReadString('\n')
	if err != nil || line != "first\n" {
		t.Fatalf("first chunk: %q %v", line, err)
	}
	if resp.ContentLength != -1 || len(resp.TransferEncoding) == 0 {
		t.Fatalf("not streamed: Content-Length %d, Transfer-Encoding %v", resp.ContentLength, resp.TransferEncoding)
	}
	gate <- struct{}{}
	rest, _ := io.ReadAll(br)
	if string(rest) != "second\n" || resp.Trailer.Get("X-Done") != "yes" {
		t.Fatalf("rest %q trailer %v", rest, resp.Trailer)
	}

	resp, err = client.PostForm(srv.URL+"/echo", url.Values{"a": {"b c"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "b c|application/x-www-form-urlencoded" {
		t.Fatalf("form: %q", b)
	}

	req, _ := http.NewRequest("GET", srv.URL+"/cookie", nil)
	req.AddCookie(&http.Cookie{Name: "in", Value: "v1"})
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if cs := resp.Cookies(); resp.StatusCode != 204 || len(cs) != 1 || cs[0].Value != "got-v1" || !cs[0].HttpOnly {
		t.Fatalf("cookie: %d %v", resp.StatusCode, cs)
	}
}

func TestServeHTTPSSE(t *testing.T) {
	gate := make(chan struct{})
	srv := httptest.NewServer(httpStreamApp(gate))
	defer srv.Close()
	resp, err := newClient(t).Get(srv.URL + "/sse")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("Content-Type %q", resp.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(resp.Body)
	for i := range 2 {
		var ev []string
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("event %d: %v", i, err)
			}
			if line == "\n" {
				break
			}
			ev = append(ev, strings.TrimSpace(line))
		}
		if strings.Join(ev, ",") != "id: "+string(rune('1'+i))+",data: tick" {
			t.Fatalf("event %d: %q", i, ev)
		}
		gate <- struct{}{} // the next event is sent only after this one arrived
	}
}

// The request's context is the http.Request's: values set by net/http
// middleware outside the App reach c.Context().
func TestServeHTTPContext(t *testing.T) {
	app := httpStreamApp(nil)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		app.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, "from-outside")))
	})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/ctx", nil))
	if w.Body.String() != "from-outside" {
		t.Fatalf("context value: %q", w.Body.String())
	}
}

func TestServeHTTPStatic(t *testing.T) {
	app := gwist.New()
	big := strings.Repeat("0123456789", 10_000) // 100 KB: streamed
	app.StaticFS("/s", fstest.MapFS{
		"a.txt":   {Data: []byte("hello static\n"), ModTime: time.Unix(1700000000, 0)},
		"big.txt": {Data: []byte(big)},
	})
	srv := httptest.NewServer(app)
	defer srv.Close()
	client := newClient(t)

	resp, body := get(t, client, srv.URL+"/s/a.txt")
	if resp.StatusCode != 200 || body != "hello static\n" || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
		t.Fatalf("GET: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	etag := resp.Header.Get("ETag")

	req, _ := http.NewRequest("GET", srv.URL+"/s/a.txt", nil)
	req.Header.Set("If-None-Match", etag)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 304 {
		t.Fatalf("If-None-Match: %d", resp.StatusCode)
	}

	req, _ = http.NewRequest("GET", srv.URL+"/s/big.txt", nil)
	req.Header.Set("Range", "bytes=10-19")
	resp, err = client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 206 || string(b) != "0123456789" || resp.Header.Get("Content-Range") != "bytes 10-19/100000" {
		t.Fatalf("Range: %d %q %v", resp.StatusCode, b, resp.Header)
	}

	resp, body = get(t, client, srv.URL+"/s/big.txt")
	if resp.StatusCode != 200 || body != big || resp.ContentLength != 100000 {
		t.Fatalf("big: %d len %d Content-Length %d", resp.StatusCode, len(body), resp.ContentLength)
	}

	resp, err = client.Head(srv.URL + "/s/big.txt")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != 100000 {
		t.Fatalf("HEAD: %d Content-Length %d", resp.StatusCode, resp.ContentLength)
	}
}

// A streamed response whose handler fails mid-way is cut off (net/http's
// http.ErrAbortHandler), so the client sees a truncated body, not a
// complete one.
func TestServeHTTPStreamAbort(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/", func(c *gwist.Ctx) error {
		_, _ = c.Write([]byte("partial"))
		_ = c.Flush()
		return errors.New("failed mid-stream")
	})
	srv := httptest.NewServer(app)
	defer srv.Close()
	srv.Config.ErrorLog = nil
	resp, err := newClient(t).Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil {
		t.Fatalf("a cut-off response read as complete: %q", b)
	}
	if string(b) != "partial" {
		t.Fatalf("got %q before the cut", b)
	}
}

func TestServeHTTPTLS(t *testing.T) {
	app := gwist.New()
	app.GET("/", func(c *gwist.Ctx) error {
		cs := c.TLS()
		if cs == nil {
			return c.String(200, "plain")
		}
		return c.String(200, tlsVersionName(cs.Version))
	})
	srv := httptest.NewTLSServer(app)
	defer srv.Close()
	resp, body := get(t, srv.Client(), srv.URL)
	if resp.StatusCode != 200 || body != "TLS 1.3" {
		t.Fatalf("TLS: %d %q", resp.StatusCode, body)
	}
	w := httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest("GET", "/", nil))
	if w.Body.String() != "plain" {
		t.Fatalf("plaintext: %q", w.Body.String())
	}
}

func tlsVersionName(v uint16) string {
	switch v {
	case 0x0303:
		return "TLS 1.2"
	case 0x0304:
		return "TLS 1.3"
	}
	return "other"
}

// httptestDo runs one request through app.ServeHTTP into a recorder.
func httptestDo(t *testing.T, app *gwist.App, method, target string) *httptest.ResponseRecorder {
	t.Helper()
	w := httptest.NewRecorder()
	app.ServeHTTP(w, httptest.NewRequest(method, target, nil))
	return w
}
