package main

import (
	"github.com/valyala/fasthttp"

	"github.com/gwist/gwist/benchmarks/internal/serve"
)

var (
	helloBody = []byte(serve.HelloBody)
	jsonBody  = []byte(serve.JSONBody)
)

// handle answers the three benchmark routes.
func handle(ctx *fasthttp.RequestCtx) {
	path := string(ctx.Path())
	switch path {
	case serve.HelloPath, serve.JSONPath:
		if !ctx.IsGet() {
			ctx.Error("method not allowed", fasthttp.StatusMethodNotAllowed)
			return
		}
		if path == serve.HelloPath {
			ctx.SetContentType(serve.TextType)
			ctx.SetBody(helloBody)
		} else {
			ctx.SetContentType(serve.JSONType)
			ctx.SetBody(jsonBody)
		}
	case serve.EchoPath:
		if !ctx.IsPost() {
			ctx.Error("method not allowed", fasthttp.StatusMethodNotAllowed)
			return
		}
		if ct := ctx.Request.Header.ContentType(); len(ct) > 0 {
			ctx.Response.Header.SetContentTypeBytes(ct)
		}
		ctx.SetBody(ctx.PostBody())
	default:
		ctx.Error("not found", fasthttp.StatusNotFound)
	}
}
