package gwist_test

import (
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/h2spectest"
)

// h2spec in strict mode against a gwist App, over h2c (prior knowledge,
// WithHTTP2(true)) and over TLS (ALPN h2, with the default options: HTTP/2
// is on for TLS by default), on the worker pool and inline: every case
// h2spec runs passes (it skips one that needs a route this App does not
// have).
func TestH2specApp(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, inline := range []bool{false, true} {
		newApp := func(opts ...gwist.Option) *gwist.App {
			app := gwist.New(append(opts, gwist.WithInline(inline), gwist.WithLogger(discardLogger()))...)
			app.Any("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
			return app
		}
		name := "workers"
		if inline {
			name = "inline"
		}
		t.Run("h2c/"+name, func(t *testing.T) { h2spectest.Run(t, startApp(t, newApp(gwist.WithHTTP2(true)))) })
		t.Run("TLS/"+name, func(t *testing.T) {
			h2spectest.Run(t, startTLS(t, newApp(), serverTLSConfig(t)), "-t", "-k")
		})
	}
}
