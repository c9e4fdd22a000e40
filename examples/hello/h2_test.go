package main

import (
	"context"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/h2spectest"
)

// h2spec in strict mode against the example with -http2: every case
// passes, over TLS and over h2c.
func TestH2specHello(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	app := gwist.New(gwist.WithHTTP2(true))
	routes(app)
	static(app, "")
	plain, err := app.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := tlsConfig("", "")
	if err != nil {
		t.Fatal(err)
	}
	secure, err := app.StartTLS("127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = app.Shutdown(ctx)
	})
	t.Run("TLS", func(t *testing.T) { h2spectest.Run(t, secure.String(), "-t", "-k") })
	t.Run("h2c", func(t *testing.T) {
		h2spectest.Run(t, plain.String())
	})
}
