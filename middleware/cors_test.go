package middleware_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

// TestCORS sends real preflights and requests: an allowed origin gets the
// Access-Control headers (the preflight before routing, even for a path the
// router would answer OPTIONS for itself), another origin gets none.
func TestCORS(t *testing.T) {
	app := gwist.New()
	app.Use(middleware.CORS(middleware.CORSConfig{
		AllowOrigins:     []string{"http://localhost:3000"},
		AllowOriginFunc:  func(o string) bool { return strings.HasSuffix(o, ".trusted.example") },
		AllowCredentials: true,
		ExposeHeaders:    []string{"X-Total"},
		MaxAge:           10 * time.Minute,
	}))
	app.POST("/todos", func(c *gwist.Ctx) error { c.SetHeader("X-Total", "1"); return c.String(201, "created") })
	url := startApp(t, app)
	client := newClient(t)

	preflight := map[string]string{"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
		"Access-Control-Request-Headers": "content-type, x-token"}
	resp, _ := do(t, client, "OPTIONS", url+"/todos", preflight, "")
	h := resp.Header
	if resp.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != "http://localhost:3000" ||
		h.Get("Access-Control-Allow-Credentials") != "true" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") ||
		h.Get("Access-Control-Allow-Headers") != "content-type, x-token" || h.Get("Access-Control-Max-Age") != "600" ||
		!strings.Contains(strings.Join(h.Values("Vary"), ","), "Origin") || h.Get("Allow") != "" {
		t.Fatalf("preflight: %d %v", resp.StatusCode, h)
	}
	resp, body := do(t, client, "POST", url+"/todos", map[string]string{"Origin": "https://a.trusted.example"}, "x")
	h = resp.Header
	if resp.StatusCode != 201 || string(body) != "created" || h.Get("Access-Control-Allow-Origin") != "https://a.trusted.example" ||
		h.Get("Access-Control-Expose-Headers") != "X-Total" || h.Get("Vary") != "Origin" {
		t.Fatalf("request: %d %q %v", resp.StatusCode, body, h)
	}
	for _, o := range []string{"http://evil.example", "http://localhost:3001"} {
		resp, _ = do(t, client, "OPTIONS", url+"/todos", map[string]string{"Origin": o, "Access-Control-Request-Method": "POST"}, "")
		if resp.Header.Get("Access-Control-Allow-Origin") != "" || resp.Header.Get("Access-Control-Allow-Methods") != "" {
			t.Fatalf("origin %s allowed: %v", o, resp.Header)
		}
	}
	// Without an Origin, an OPTIONS is the router's (Allow), not a preflight.
	resp, _ = do(t, client, "OPTIONS", url+"/todos", nil, "")
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Allow") != "OPTIONS, POST" {
		t.Fatalf("plain OPTIONS: %d %v", resp.StatusCode, resp.Header)
	}
}

// TestCORSAnyOrigin: "*" without credentials answers "*" and does not vary.
func TestCORSAnyOrigin(t *testing.T) {
	app := gwist.New()
	app.Use(middleware.CORS(middleware.CORSConfig{AllowOrigins: []string{"*"}}))
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	url := startApp(t, app)
	resp, _ := do(t, newClient(t), "GET", url+"/", map[string]string{"Origin": "http://x.example"}, "")
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" || resp.Header.Get("Vary") != "" {
		t.Fatalf("%v", resp.Header)
	}
}
