package gwist_test

import (
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/h2spectest"
)

// h2spec in strict mode against a gwist App with HTTP/2 on, over h2c
// (prior knowledge) and over TLS (ALPN h2), on the worker pool and inline:
// every case passes but one on h2c, where the port's HTTP/1.1 answers a
// preface that is not one with 400 before the close.
func TestH2specApp(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, inline := range []bool{false, true} {
		newApp := func() *gwist.App {
			app := gwist.New(gwist.WithHTTP2(true), gwist.WithInline(inline), gwist.WithLogger(discardLogger()))
			app.Any("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
			return app
		}
		name := "workers"
		if inline {
			name = "inline"
		}
		t.Run("h2c/"+name, func(t *testing.T) {
			h2spectest.RunAllowing(t, startApp(t, newApp()), map[string]string{
				"Sends invalid connection preface": "the port serves HTTP/1.1 too: bytes that are neither the " +
					"preface nor a request get HTTP/1.1's 400, then the close (net/http does the same)",
			})
		})
		t.Run("TLS/"+name, func(t *testing.T) {
			h2spectest.Run(t, startTLS(t, newApp(), serverTLSConfig(t)), "-t", "-k")
		})
	}
}
