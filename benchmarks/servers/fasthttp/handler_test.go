package main

import (
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/gwist/gwist/benchmarks/internal/serve"
)

func TestRoutes(t *testing.T) {
	cases := []struct {
		method, path, ctype, body string
		status                    int
		wantType, wantBody        string
	}{
		{"GET", "/", "", "", 200, serve.TextType, serve.HelloBody},
		{"GET", "/json", "", "", 200, serve.JSONType, serve.JSONBody},
		{"POST", "/echo", "application/x-test", "ping", 200, "application/x-test", "ping"},
		{"GET", "/nope", "", "", 404, "", ""},
		{"POST", "/", "", "", 405, "", ""},
	}
	for _, c := range cases {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(c.method)
		ctx.Request.SetRequestURI(c.path)
		if c.ctype != "" {
			ctx.Request.Header.SetContentType(c.ctype)
		}
		ctx.Request.SetBodyString(c.body)
		handle(&ctx)
		if got := ctx.Response.StatusCode(); got != c.status {
			t.Errorf("%s %s: status %d, want %d", c.method, c.path, got, c.status)
			continue
		}
		if c.status != 200 {
			continue
		}
		if got := string(ctx.Response.Header.ContentType()); got != c.wantType {
			t.Errorf("%s %s: Content-Type %q, want %q", c.method, c.path, got, c.wantType)
		}
		if got := string(ctx.Response.Body()); got != c.wantBody {
			t.Errorf("%s %s: body %q, want %q", c.method, c.path, got, c.wantBody)
		}
	}
}
