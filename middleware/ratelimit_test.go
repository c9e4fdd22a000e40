package middleware_test

import (
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

// TestRateLimit: a burst of 3 passes, the 4th gets 429 with Retry-After,
// and another client (by key) is not affected.
func TestRateLimit(t *testing.T) {
	app := gwist.New()
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") },
		middleware.RateLimit(middleware.RateLimitConfig{Rate: 0.5, Burst: 3}))
	app.GET("/keyed", func(c *gwist.Ctx) error { return c.String(200, "ok") },
		middleware.RateLimit(middleware.RateLimitConfig{Rate: 0.5, Burst: 1,
			Key: func(c *gwist.Ctx) string { return c.Header("X-Client") }}))
	url := startApp(t, app)
	client := newClient(t)
	for i := range 3 {
		if resp, _ := do(t, client, "GET", url+"/", nil, ""); resp.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
	}
	resp, _ := do(t, client, "GET", url+"/", nil, "")
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" {
		t.Fatalf("over the burst: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	for _, who := range []string{"a", "b"} {
		if resp, _ := do(t, client, "GET", url+"/keyed", map[string]string{"X-Client": who}, ""); resp.StatusCode != 200 {
			t.Fatalf("client %s: %d", who, resp.StatusCode)
		}
	}
	if resp, _ := do(t, client, "GET", url+"/keyed", map[string]string{"X-Client": "a"}, ""); resp.StatusCode != 429 {
		t.Fatalf("client a again: %d", resp.StatusCode)
	}
}
