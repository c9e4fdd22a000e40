package gwist_test

import (
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/http1"
)

const benchRequest = "GET /users/42?tag=go&page=2 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n" +
	"User-Agent: wrk\r\nAccept: */*\r\nX-Request-ID: abc-123\r\n\r\n"

// benchServe runs the request raw through app's serve path b.N times: the
// App's share of a request (routing, Ctx, middleware, handler), without the
// response's serialization or sockets (the engine's
// BenchmarkWholeRequestInline has those). The request is parsed once, or
// before every run with reparse (needed when the handler takes the body).
func benchServe(b *testing.B, app *gwist.App, raw string, reparse bool) {
	b.Helper()
	ex := new(engine.Exchange)
	in := []byte(raw)
	var p http1.Parser
	parse := func() {
		ex.Request.Reset()
		rest := in
		for len(rest) > 0 {
			n, ev, err := p.Parse(&ex.Request, rest)
			if err != nil {
				b.Fatalf("parse: %v", err)
			}
			rest = rest[n:]
			if ev == http1.MessageComplete {
				return
			}
		}
		b.Fatal("parse: incomplete request")
	}
	one := func() {
		if reparse {
			parse()
		}
		ex.Status = 0
		ex.Header.Reset()
		ex.Body = ex.Body[:0]
		app.ServeExchange(ex)
	}
	parse()
	one() // warm the pooled Ctx
	b.ReportAllocs()
	for b.Loop() {
		one()
	}
	if ex.Status != 200 && ex.Status != 0 {
		b.Fatalf("status %d", ex.Status)
	}
}

// BenchmarkServeBare is a route whose handler reads nothing: it must stay
// at 0 allocs/op.
func BenchmarkServeBare(b *testing.B) {
	app := gwist.New()
	app.GET("/users/:id", func(c *gwist.Ctx) error { return c.String(200, "Hello, World!") })
	benchServe(b, app, benchRequest, false)
}

var sink string

// The accessor benchmarks read one value per request and keep it (in a
// package variable, as a handler storing it would): their cost over
// BenchmarkServeBare is the accessor's.
func BenchmarkServeParam(b *testing.B) {
	app := gwist.New()
	app.GET("/users/:id", func(c *gwist.Ctx) error { sink = c.Param("id"); return c.String(200, "ok") })
	benchServe(b, app, benchRequest, false)
}

func BenchmarkServeQuery(b *testing.B) {
	app := gwist.New()
	app.GET("/users/:id", func(c *gwist.Ctx) error { sink = c.Query("page"); return c.String(200, "ok") })
	benchServe(b, app, benchRequest, false)
}

func BenchmarkServeHeader(b *testing.B) {
	app := gwist.New()
	app.GET("/users/:id", func(c *gwist.Ctx) error { sink = c.Header("User-Agent"); return c.String(200, "ok") })
	benchServe(b, app, benchRequest, false)
}

func BenchmarkServePath(b *testing.B) {
	app := gwist.New()
	app.GET("/users/:id", func(c *gwist.Ctx) error { sink = c.Path(); return c.String(200, "ok") })
	benchServe(b, app, benchRequest, false)
}

var sinkBytes []byte

// BenchmarkServeParse is BenchmarkServeBody's baseline: the same request,
// parsed each time, with a handler that does not read the body.
func BenchmarkServeParse(b *testing.B) {
	app := gwist.New()
	app.POST("/items", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	benchServe(b, app, "POST /items HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"+
		"Content-Length: 27\r\n\r\n{\"name\":\"widget\",\"qty\":12}\n", true)
}

func BenchmarkServeBody(b *testing.B) {
	app := gwist.New()
	app.POST("/items", func(c *gwist.Ctx) error { sinkBytes = c.Body(); return c.String(200, "ok") })
	benchServe(b, app, "POST /items HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"+
		"Content-Length: 27\r\n\r\n{\"name\":\"widget\",\"qty\":12}\n", true)
}

func BenchmarkServeRequest(b *testing.B) {
	app := gwist.New()
	app.GET("/users/:id", func(c *gwist.Ctx) error { sink = c.Request().Target; return c.String(200, "ok") })
	benchServe(b, app, benchRequest, false)
}

// Write without a Content-Type: the type is sniffed once, from the
// buffered body (sniff.go), without an allocation.
func BenchmarkServeWriteSniffed(b *testing.B) {
	app := gwist.New()
	body := []byte(`{"id":1,"title":"milk"}`)
	app.GET("/users/:id", func(c *gwist.Ctx) error { _, err := c.Write(body); return err })
	benchServe(b, app, benchRequest, false)
}

// Write with a Content-Type: one header lookup at the first Write.
func BenchmarkServeWriteTyped(b *testing.B) {
	app := gwist.New()
	body := []byte(`{"id":1,"title":"milk"}`)
	app.GET("/users/:id", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Type", "application/json")
		_, err := c.Write(body)
		return err
	})
	benchServe(b, app, benchRequest, false)
}

// BenchmarkServeJSON encodes a small struct (the benchmark suite's /json
// route): the encoder's cost over BenchmarkServeBare.
func BenchmarkServeJSON(b *testing.B) {
	app := gwist.New()
	app.GET("/users/:id", func(c *gwist.Ctx) error {
		return c.JSON(200, struct {
			Message string `json:"message"`
		}{"Hello, World!"})
	})
	benchServe(b, app, benchRequest, false)
}
