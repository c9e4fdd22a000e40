package gwist_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// kept is what a handler stored from one request.
type kept struct {
	method, path, route, param, query, header, target, hdrField, body string
}

// TestRequestValuesSurviveTheHandler stores every value a handler can read
// from a Ctx, over many requests on one keep-alive connection (so the same
// pooled buffers are reused), then sends more requests with other bytes of
// the same lengths, and checks that nothing stored changed: request values
// are safe to keep by default.
func TestRequestValuesSurviveTheHandler(t *testing.T) {
	for _, inline := range []bool{false, true} {
		t.Run(fmt.Sprintf("inline=%v", inline), func(t *testing.T) {
			var mu sync.Mutex
			var store []kept
			var bodies [][]byte
			app := gwist.New(gwist.WithInline(inline), gwist.WithLogger(discardLogger()))
			app.Handle("REPORT", "/keep/:id", func(c *gwist.Ctx) error {
				r := c.Request()
				k := kept{
					method: c.Method(), path: c.Path(), route: c.Route(), param: c.Param("id"),
					query: c.Query("tag"), header: c.Header("X-Tag"), target: r.Target,
					hdrField: r.Headers[len(r.Headers)-1].Value, body: string(c.Body()),
				}
				mu.Lock()
				store = append(store, k)
				bodies = append(bodies, c.Body())
				mu.Unlock()
				return c.NoContent(204)
			})
			// Other methods over the same bytes of the pooled head buffer.
			app.Handle("PURGE", "/keep/:id", func(c *gwist.Ctx) error { return c.NoContent(204) })
			addr := startApp(t, app)
			rc := dialRaw(t, addr)
			send := func(method, v string) {
				rc.send(method + " /keep/" + v + "?tag=" + v + " HTTP/1.1\r\nHost: x\r\nX-Tag: " + v +
					"\r\nContent-Length: " + fmt.Sprint(len(v)) + "\r\n\r\n" + v)
				if resp, _ := rc.readResponse(method); resp.StatusCode != 204 {
					t.Fatalf("status %d", resp.StatusCode)
				}
			}
			const n = 50
			for i := range n {
				send("REPORT", fmt.Sprintf("v%04d", i))
			}
			for range 100 {
				send("REPORT", "zzzzz")
				send("PURGE", "yyyyy")
			}
			mu.Lock()
			defer mu.Unlock()
			for i, k := range store[:n] {
				v := fmt.Sprintf("v%04d", i)
				want := kept{
					method: "REPORT", path: "/keep/" + v, route: "/keep/:id", param: v, query: v, header: v,
					target: "/keep/" + v + "?tag=" + v, hdrField: fmt.Sprint(len(v)), body: v,
				}
				if k != want || string(bodies[i]) != v {
					t.Fatalf("request %d: kept %+v (body bytes %q), want %+v", i, k, bodies[i], want)
				}
			}
			if s := store[len(store)-1]; !strings.HasPrefix(s.param, "zzz") {
				t.Fatalf("last request: %+v", s)
			}
		})
	}
}

// A context derived from the request's (WithTimeout, as a handler that
// calls a database does) is safe after the handler returns and its Ctx is
// reused: the context package's watcher must not read the Ctx later. Under
// -race this failed before requestContext.AfterFunc.
func TestDerivedContextOutlivesTheRequestSafely(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/", func(c *gwist.Ctx) error {
		ctx, cancel := context.WithTimeout(c.Context(), time.Second)
		defer cancel()
		if err := ctx.Err(); err != nil {
			return err
		}
		return c.String(200, "ok")
	})
	app.GET("/cancelled", func(c *gwist.Ctx) error {
		ctx, cancel := context.WithCancel(c.Context())
		defer cancel()
		<-ctx.Done() // the client leaves: the derived context ends too
		return nil
	})
	addr := startApp(t, app)
	c := newClient(t)
	for i := 0; i < 200; i++ {
		if resp, body := get(t, c, "http://"+addr+"/"); resp.StatusCode != 200 || body != "ok" {
			t.Fatalf("%d %q", resp.StatusCode, body)
		}
	}
	r := dialRaw(t, addr)
	r.send("GET /cancelled HTTP/1.1\r\nHost: x\r\n\r\n")
	waitFor(t, 2*time.Second, "the handler to start", func() bool { return app.Stats().Handlers == 1 })
	r.c.Close()
	waitFor(t, 2*time.Second, "the derived context to end with the client", func() bool { return app.Stats().Handlers == 0 })
}
