package middleware_test

import (
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

func TestSecureHeaders(t *testing.T) {
	app := gwist.New()
	app.Use(middleware.SecureHeaders(middleware.SecureHeadersConfig{FrameOptions: "-",
		ContentSecurityPolicy: "default-src 'self'", HSTSMaxAge: 365 * 24 * time.Hour}))
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	url := startApp(t, app)
	for _, path := range []string{"/", "/missing"} { // the router's 404 too
		resp, _ := do(t, newClient(t), "GET", url+path, nil, "")
		h := resp.Header
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("X-Frame-Options") != "" ||
			h.Get("Referrer-Policy") != "strict-origin-when-cross-origin" || h.Get("Cross-Origin-Opener-Policy") != "same-origin" ||
			h.Get("Content-Security-Policy") != "default-src 'self'" || h.Get("Strict-Transport-Security") != "max-age=31536000" {
			t.Fatalf("%s: %v", path, h)
		}
	}
}
