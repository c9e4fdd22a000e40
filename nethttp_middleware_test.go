package gwist_test

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gwist/gwist"
)

// Hand-written net/http middleware of the usual kinds: one that sets a
// header and short-circuits (CORS-like), one that wraps the ResponseWriter
// (a status recorder that also transforms the body), one that adds a
// context value.

type recordingWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (r *recordingWriter) WriteHeader(code int) {
	r.status = code
	r.ResponseWriter.Header().Set("X-Seen-Status", strconv.Itoa(code))
	r.ResponseWriter.WriteHeader(code)
}

func (r *recordingWriter) Write(p []byte) (int, error) {
	if r.status == 0 {
		r.WriteHeader(200)
	}
	r.bytes += len(p)
	return r.ResponseWriter.Write(bytes.ToUpper(p))
}

func (r *recordingWriter) Flush() { http.NewResponseController(r.ResponseWriter).Flush() }

func TestWrapMiddleware(t *testing.T) {
	var mu sync.Mutex
	var order []string
	note := func(s string) { mu.Lock(); order = append(order, s); mu.Unlock() }
	take := func() string { mu.Lock(); defer mu.Unlock(); s := strings.Join(order, " "); order = nil; return s }
	var recorded []string

	cors := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			note("cors>")
			w.Header().Set("Access-Control-Allow-Origin", "http://localhost:3000")
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
				w.WriteHeader(http.StatusNoContent) // short-circuit: next is never called
				note("<cors preflight")
				return
			}
			next.ServeHTTP(w, r)
			note("<cors")
		})
	}
	record := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			note("record>")
			rw := &recordingWriter{ResponseWriter: w}
			next.ServeHTTP(rw, r)
			mu.Lock()
			recorded = append(recorded, r.URL.Path+" "+strconv.Itoa(rw.status)+" "+strconv.Itoa(rw.bytes))
			mu.Unlock()
			note("<record")
		})
	}
	withValue := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			note("value>")
			next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, "v-"+r.URL.Path)))
			note("<value")
		})
	}
	gwistMW := func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			note("gwist>")
			err := next(c)
			note("<gwist " + strconv.Itoa(c.ResponseStatus()))
			return err
		}
	}

	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.Use(gwist.WrapMiddleware(cors), gwistMW, gwist.WrapMiddleware(record))
	app.GET("/hello", func(c *gwist.Ctx) error {
		note("handler")
		v, _ := c.Context().Value(ctxKey{}).(string)
		if c.ResponseHeader("Access-Control-Allow-Origin") == "" {
			t.Error("the handler does not see the header the net/http middleware set")
		}
		return c.String(201, "hello "+v)
	}, gwist.WrapMiddleware(withValue))
	app.GET("/fail", func(c *gwist.Ctx) error {
		note("handler")
		return gwist.NewHTTPError(418, "teapot")
	})
	addr := startApp(t, app)
	client := newClient(t)

	resp, body := get(t, client, "http://"+addr+"/hello")
	if resp.StatusCode != 201 || body != "HELLO V-/HELLO" || resp.Header.Get("X-Seen-Status") != "201" ||
		resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
		t.Fatalf("/hello: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	want := "cors> gwist> record> value> handler <value <record <gwist 201 <cors"
	if got := take(); got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}

	resp, body = get(t, client, "http://"+addr+"/fail")
	if resp.StatusCode != 418 || body != "TEAPOT\n" || resp.Header.Get("X-Seen-Status") != "418" {
		t.Fatalf("/fail: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if got, want := take(), "cors> gwist> record> handler <record <gwist 418 <cors"; got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}

	req, _ := http.NewRequest("OPTIONS", "http://"+addr+"/hello", nil)
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 204 || resp.Header.Get("Access-Control-Allow-Origin") != "http://localhost:3000" {
		t.Fatalf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
	if got, want := take(), "cors> <cors preflight"; got != want {
		t.Fatalf("preflight order\n got %s\nwant %s", got, want)
	}
	mu.Lock()
	rec := strings.Join(recorded, ",")
	mu.Unlock()
	if rec != "/hello 201 14,/fail 418 7" {
		t.Fatalf("recorded %q", rec)
	}

	// Through App.ServeHTTP too.
	srvResp := httptestDo(t, app, "GET", "/hello")
	if srvResp.Code != 201 || srvResp.Body.String() != "HELLO V-/HELLO" {
		t.Fatalf("ServeHTTP: %d %q", srvResp.Code, srvResp.Body.String())
	}
}
