package gwist_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

// BenchmarkServeChain is BenchmarkServeBare's route behind the request-ID,
// access-log (a text slog handler writing to io.Discard, so formatting is
// counted) and recover middleware: their cost per request is the
// difference.
func BenchmarkServeChain(b *testing.B) {
	app := gwist.New()
	app.Use(middleware.RequestID(), middleware.AccessLog(slog.New(slog.NewTextHandler(io.Discard, nil))),
		middleware.Recover())
	app.GET("/users/:id", func(c *gwist.Ctx) error { return c.String(200, "Hello, World!") })
	benchServe(b, app, benchRequest, false)
}

// BenchmarkServeCORS is the bare route behind CORS with a request that
// carries an allowed Origin.
func BenchmarkServeCORS(b *testing.B) {
	app := gwist.New()
	app.Use(middleware.CORS(middleware.CORSConfig{AllowOrigins: []string{"http://localhost:3000"}}))
	app.GET("/users/:id", func(c *gwist.Ctx) error { return c.String(200, "Hello, World!") })
	benchServe(b, app, "GET /users/42 HTTP/1.1\r\nHost: a\r\nOrigin: http://localhost:3000\r\n\r\n", false)
}
