package gwist_test

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/gwist/gwist"
)

// A middleware that reads the answer after next: the status and size of
// every response, the router's 404 included, and a request-scoped value.
func ExampleCtx_ResponseStatus() {
	app := gwist.New()
	app.Use(func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			c.Set("tenant", "acme")
			err := next(c)
			fmt.Println(c.Method(), c.Path(), c.ResponseStatus(), c.BytesWritten())
			return err
		}
	})
	app.GET("/hello", func(c *gwist.Ctx) error { return c.String(200, "hello "+c.Get("tenant").(string)) })
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer app.Shutdown(context.Background())
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	for _, path := range []string{"/hello", "/missing"} {
		resp, err := (&http.Client{Transport: tr}).Get("http://" + addr.String() + path)
		if err != nil {
			panic(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	// Output:
	// GET /hello 200 10
	// GET /missing 404 10
}

// Values from Query, Param, Header, Path and Body may be kept after the
// handler returns; the Unsafe accessors are the zero-copy exception.
func ExampleCtx_UnsafeHeader() {
	seen := map[string]int{}
	app := gwist.New(gwist.WithInline(true))
	app.GET("/", func(c *gwist.Ctx) error {
		seen[c.Query("tag")]++                // a copy: safe as a map key
		if c.UnsafeHeader("X-Debug") == "1" { // compared, not kept: no copy needed
			return c.String(200, "debug")
		}
		return c.String(200, "ok")
	})
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	tr := &http.Transport{}
	for _, tag := range []string{"go", "web", "go"} {
		resp, err := (&http.Client{Transport: tr}).Get("http://" + addr.String() + "/?tag=" + tag)
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
	}
	tr.CloseIdleConnections()
	_ = app.Shutdown(context.Background())
	fmt.Println(seen["go"], seen["web"])
	// Output: 2 1
}
