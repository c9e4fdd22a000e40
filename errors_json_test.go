package gwist_test

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gwist/gwist"
)

// errorsSeen records the *HTTPError codes an error handler got.
type errorsSeen struct {
	mu    sync.Mutex
	codes []int
}

func (e *errorsSeen) handler(c *gwist.Ctx, err error) {
	var he *gwist.HTTPError
	if errors.As(err, &he) {
		e.mu.Lock()
		e.codes = append(e.codes, he.Code)
		e.mu.Unlock()
	}
	gwist.JSONErrorHandler(c, err)
}

func (e *errorsSeen) take() []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.codes
	e.codes = nil
	return c
}

// jsonErrorApp answers errors with JSONErrorHandler through seen, and
// records what app-level middleware sees of each request in mw.
func jsonErrorApp(seen *errorsSeen, mw *[]string, mu *sync.Mutex) *gwist.App {
	app := gwist.New(gwist.WithErrorHandler(seen.handler), gwist.WithMaxBodyBytes(16), gwist.WithLogger(discardLogger()))
	app.Use(func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			err := next(c)
			mu.Lock()
			*mw = append(*mw, c.Method()+" "+http.StatusText(c.ResponseStatus())+" err="+errString(err))
			mu.Unlock()
			return err
		}
	})
	app.GET("/items/:id", func(c *gwist.Ctx) error { return c.JSON(200, map[string]string{"id": c.Param("id")}) })
	app.POST("/items", func(c *gwist.Ctx) error { return c.NoContent(201) })
	return app
}

// Every answer gwist makes itself reaches the error handler as an
// *HTTPError: with JSONErrorHandler, a JSON API answers 404, 405 and 413
// in JSON, the automatic OPTIONS and the redirect without a body; the
// middleware around routing see the answer and no error, as before. Over
// a real listener and under httptest (ServeHTTP) alike.
func TestJSONErrorsEverywhere(t *testing.T) {
	for _, mode := range []string{"listener", "httptest"} {
		t.Run(mode, func(t *testing.T) {
			seen := &errorsSeen{}
			var mw []string
			var mu sync.Mutex
			app := jsonErrorApp(seen, &mw, &mu)
			var base string
			if mode == "listener" {
				base = "http://" + startApp(t, app)
			} else {
				srv := httptest.NewServer(app)
				t.Cleanup(srv.Close)
				base = srv.URL
			}
			cl := newClient(t)
			cl.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			cases := []struct {
				method, path, body string
				code               int
				json               string // the "error" field; "" for no body
				header, value      string
			}{
				{"GET", "/nope", "", 404, "Not Found", "", ""},
				{"PUT", "/items/1", "", 405, "Method Not Allowed", "Allow", "GET, HEAD, OPTIONS"},
				{"OPTIONS", "/items/1", "", 204, "", "Allow", "GET, HEAD, OPTIONS"},
				{"GET", "/items/1/", "", 301, "", "Location", "/items/1"},
				{"POST", "/items/", "", 308, "", "Location", "/items"},
				{"POST", "/items", strings.Repeat("x", 17), 413, "Request Entity Too Large", "", ""},
			}
			for _, tc := range cases {
				req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
				resp, err := cl.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				what := tc.method + " " + tc.path
				if resp.StatusCode != tc.code {
					t.Errorf("%s: %d %q, want %d", what, resp.StatusCode, b, tc.code)
					continue
				}
				if tc.header != "" && resp.Header.Get(tc.header) != tc.value {
					t.Errorf("%s: %s %q, want %q", what, tc.header, resp.Header.Get(tc.header), tc.value)
				}
				if tc.json == "" {
					if len(b) != 0 {
						t.Errorf("%s: body %q, want none", what, b)
					}
					continue
				}
				var got map[string]string
				if err := json.Unmarshal(b, &got); err != nil || got["error"] != tc.json ||
					resp.Header.Get("Content-Type") != "application/json" {
					t.Errorf("%s: %q (%s), want {\"error\": %q} as application/json", what, b, resp.Header.Get("Content-Type"), tc.json)
				}
			}
			want := []int{404, 405, 204, 301, 308, 413}
			if got := seen.take(); !equalInts(got, want) {
				t.Errorf("the error handler saw %v, want %v", got, want)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, line := range mw {
				if !strings.HasSuffix(line, "err=nil") && !strings.Contains(line, "Too Large") {
					t.Errorf("middleware saw an error for a router answer: %s", line)
				}
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A request the worker pool has no room for gets the error handler's 503
// (JSON here), with Retry-After, over HTTP/1.1 and HTTP/2.
func TestJSONErrorPoolFull(t *testing.T) {
	for _, proto := range []string{"h1", "h2c"} {
		t.Run(proto, func(t *testing.T) {
			seen := &errorsSeen{}
			started, release := make(chan struct{}), make(chan struct{})
			app := gwist.New(gwist.WithWorkers(1), gwist.WithHTTP2(true), gwist.WithErrorHandler(seen.handler),
				gwist.WithLogger(discardLogger()))
			app.GET("/block", func(c *gwist.Ctx) error {
				close(started)
				<-release
				return c.String(200, "done")
			})
			app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
			base := "http://" + startApp(t, app)
			blocker, cl := newClient(t), newClient(t)
			if proto == "h2c" {
				cl = h2cClient(t)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				if resp, err := blocker.Get(base + "/block"); err == nil {
					resp.Body.Close()
				}
			}()
			<-started
			resp, body := get(t, cl, base+"/")
			close(release)
			<-done
			var got map[string]string
			if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || json.Unmarshal([]byte(body), &got) != nil ||
				got["error"] != "server busy, retry later" {
				t.Fatalf("pool full: %s %d %v %q", resp.Proto, resp.StatusCode, resp.Header, body)
			}
			if codes := seen.take(); !equalInts(codes, []int{503}) {
				t.Fatalf("the error handler saw %v", codes)
			}
		})
	}
}
