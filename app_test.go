package gwist_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gwist/gwist"
)

func testRoutes(app *gwist.App) {
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "Hello, World!") })
	app.GET("/users/:id", func(c *gwist.Ctx) error {
		return c.JSON(200, map[string]string{"id": c.Param("id")})
	})
	app.GET("/files/*path", func(c *gwist.Ctx) error { return c.String(200, "file:"+c.Param("path")) })
	app.GET("/q", func(c *gwist.Ctx) error { return c.String(200, c.Query("a")+"|"+c.Query("b c")) })
	app.POST("/items", func(c *gwist.Ctx) error { return c.String(201, "created") })
	app.PUT("/items", func(c *gwist.Ctx) error { return c.String(200, "put") })
	app.GET("/dir/", func(c *gwist.Ctx) error { return c.String(200, "dir") })
	app.POST("/form/", func(c *gwist.Ctx) error { return c.String(200, "form") })
	app.GET("/panic", func(c *gwist.Ctx) error { panic("boom") })
	app.GET("/err", func(c *gwist.Ctx) error { return errors.New("plain failure") })
	app.GET("/teapot", func(c *gwist.Ctx) error { return gwist.NewHTTPError(418, "short and stout") })
	app.GET("/inject", func(c *gwist.Ctx) error {
		c.SetHeader("X-Evil", "a\r\nSet-Cookie: pwned=1")
		return c.String(200, "should not be sent")
	})
	app.GET("/redirect", func(c *gwist.Ctx) error { return c.Redirect(302, "/") })
	app.GET("/nocontent", func(c *gwist.Ctx) error { return c.NoContent(204) })
	app.POST("/json", func(c *gwist.Ctx) error {
		var in struct {
			Name string `json:"name"`
		}
		if err := c.BindJSON(&in); err != nil {
			return err
		}
		return c.JSON(200, map[string]string{"hello": in.Name})
	})
}

func forBothModes(t *testing.T, f func(t *testing.T, inline bool)) {
	t.Run("workers", func(t *testing.T) { f(t, false) })
	t.Run("inline", func(t *testing.T) { f(t, true) })
}

func TestRoutesThroughNetHTTPClient(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		app := gwist.New(gwist.WithInline(inline), gwist.WithLogger(discardLogger()))
		testRoutes(app)
		base := "http://" + startApp(t, app)
		c := newClient(t)

		cases := []struct {
			method, path string
			body         string
			status       int
			want         string
			header       map[string]string
		}{
			{"GET", "/", "", 200, "Hello, World!", map[string]string{"Content-Type": "text/plain; charset=utf-8"}},
			{"GET", "/users/42", "", 200, `{"id":"42"}` + "\n", map[string]string{"Content-Type": "application/json"}},
			{"GET", "/users/a%2Fb", "", 200, `{"id":"a/b"}` + "\n", nil},
			{"GET", "/files/css/site.css", "", 200, "file:css/site.css", nil},
			{"GET", "/q?a=1&b+c=x%20y", "", 200, "1|x y", nil},
			{"POST", "/items", "", 201, "created", nil},
			{"DELETE", "/items", "", 405, "Method Not Allowed\n", map[string]string{"Allow": "OPTIONS, POST, PUT"}},
			{"OPTIONS", "/items", "", 204, "", map[string]string{"Allow": "OPTIONS, POST, PUT"}},
			{"GET", "/nope", "", 404, "Not Found\n", nil},
			{"GET", "/dir", "", 301, "", map[string]string{"Location": "/dir/"}},
			{"POST", "/form", "", 308, "", map[string]string{"Location": "/form/"}},
			{"GET", "/users/42/", "", 301, "", map[string]string{"Location": "/users/42"}},
			{"GET", "/panic", "", 500, "Internal Server Error\n", nil},
			{"GET", "/err", "", 500, "Internal Server Error\n", nil},
			{"GET", "/teapot", "", 418, "short and stout\n", nil},
			{"GET", "/inject", "", 500, "Internal Server Error\n", map[string]string{"X-Evil": "", "Set-Cookie": ""}},
			{"GET", "/redirect", "", 302, "", map[string]string{"Location": "/"}},
			{"GET", "/nocontent", "", 204, "", nil},
			{"POST", "/json", `{"name":"gwist"}`, 200, `{"hello":"gwist"}` + "\n", nil},
			{"POST", "/json", `{"name":`, 400, "invalid JSON body: unexpected end of input\n", nil},
		}
		for _, tc := range cases {
			req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
			if tc.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := c.Do(req)
			if err != nil {
				t.Fatalf("%s %s: %v", tc.method, tc.path, err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || string(b) != tc.want {
				t.Errorf("%s %s = %d %q, want %d %q", tc.method, tc.path, resp.StatusCode, b, tc.status, tc.want)
			}
			for k, v := range tc.header {
				if got := resp.Header.Get(k); got != v {
					t.Errorf("%s %s: header %s = %q, want %q", tc.method, tc.path, k, got, v)
				}
			}
			if resp.Header.Get("Date") == "" {
				t.Errorf("%s %s: no Date header", tc.method, tc.path)
			}
		}
	})
}

func TestHEADAnsweredByGETWithoutBody(t *testing.T) {
	app := gwist.New()
	testRoutes(app)
	addr := startApp(t, app)
	r := dialRaw(t, addr)
	r.send("HEAD / HTTP/1.1\r\nHost: x\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, body := r.readResponse("HEAD")
	if resp.StatusCode != 200 || body != "" || resp.ContentLength != int64(len("Hello, World!")) {
		t.Fatalf("HEAD: %d %q cl=%d", resp.StatusCode, body, resp.ContentLength)
	}
	// The GET right behind it proves no body bytes were sent for HEAD.
	resp, body = r.readResponse("GET")
	if resp.StatusCode != 200 || body != "Hello, World!" {
		t.Fatalf("GET after HEAD: %d %q", resp.StatusCode, body)
	}
}

func TestMiddlewareAndGroups(t *testing.T) {
	app := gwist.New()
	mark := func(name string) gwist.Middleware {
		return func(next gwist.HandlerFunc) gwist.HandlerFunc {
			return func(c *gwist.Ctx) error {
				c.AddHeader("X-Chain", name)
				return next(c)
			}
		}
	}
	api := app.Group("/api", mark("api"))
	v1 := api.Group("/v1")
	v1.Use(mark("v1"))
	v1.GET("/ping", func(c *gwist.Ctx) error { return c.String(200, "pong "+c.Route()) }, mark("route"))
	app.Use(mark("global")) // after the routes: still applies
	admin := app.Group("/admin", func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			if c.Header("X-Token") != "secret" {
				return gwist.NewHTTPError(401, "")
			}
			return next(c)
		}
	})
	admin.GET("/", func(c *gwist.Ctx) error { return c.String(200, "welcome") })
	app.NotFound(func(c *gwist.Ctx) error { return c.String(404, "custom 404 for "+c.Path()) })

	base := "http://" + startApp(t, app)
	c := newClient(t)
	resp, body := get(t, c, base+"/api/v1/ping")
	if body != "pong /api/v1/ping" || strings.Join(resp.Header.Values("X-Chain"), ",") != "global,api,v1,route" {
		t.Fatalf("got %q chain %v", body, resp.Header.Values("X-Chain"))
	}
	if resp, body = get(t, c, base+"/admin/"); resp.StatusCode != 401 || body != "Unauthorized\n" {
		t.Fatalf("admin without token: %d %q", resp.StatusCode, body)
	}
	req, _ := http.NewRequest("GET", base+"/admin/", nil)
	req.Header.Set("X-Token", "secret")
	r2, err := c.Do(req)
	if err != nil || r2.StatusCode != 200 {
		t.Fatalf("admin with token: %v %v", r2, err)
	}
	r2.Body.Close()
	resp, body = get(t, c, base+"/missing")
	if resp.StatusCode != 404 || body != "custom 404 for /missing" || resp.Header.Get("X-Chain") != "global" {
		t.Fatalf("not found: %d %q %v", resp.StatusCode, body, resp.Header)
	}
}

func TestConflictingRoutesPanicAtRegistration(t *testing.T) {
	app := gwist.New()
	app.GET("/users/:id", func(c *gwist.Ctx) error { return nil })
	defer func() {
		r := recover()
		msg, _ := r.(string)
		if err, ok := r.(error); ok {
			msg = err.Error()
		}
		if !strings.Contains(msg, "/users/:id") || !strings.Contains(msg, "/users/:name") {
			t.Fatalf("panic %v does not name both routes", r)
		}
	}()
	app.GET("/users/:name", func(c *gwist.Ctx) error { return nil })
	t.Fatal("no panic")
}

func TestHandlerPanicKeepsServing(t *testing.T) {
	var n atomic.Int32
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/p", func(c *gwist.Ctx) error { n.Add(1); panic("boom") })
	app.GET("/ok", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	base := "http://" + startApp(t, app)
	c := newClient(t)
	for i := 0; i < 5; i++ {
		if resp, _ := get(t, c, base+"/p"); resp.StatusCode != 500 {
			t.Fatalf("panic route: %d", resp.StatusCode)
		}
		if resp, body := get(t, c, base+"/ok"); resp.StatusCode != 200 || body != "ok" {
			t.Fatalf("after panic: %d %q", resp.StatusCode, body)
		}
	}
	if n.Load() != 5 {
		t.Fatalf("handler ran %d times", n.Load())
	}
}
