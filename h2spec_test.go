package gwist_test

import (
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/h2spectest"
)

// h2spec in strict mode against a gwist App with HTTP/2 on, over h2c
// (prior knowledge) and over TLS (ALPN h2), on the worker pool and inline:
// every case h2spec runs passes (it skips one that needs a route this
// App does not have).
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
		t.Run("h2c/"+name, func(t *testing.T) { h2spectest.Run(t, startApp(t, newApp())) })
		t.Run("TLS/"+name, func(t *testing.T) {
			h2spectest.Run(t, startTLS(t, newApp(), serverTLSConfig(t)), "-t", "-k")
		})
	}
}
