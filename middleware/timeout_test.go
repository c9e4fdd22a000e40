package middleware_test

import (
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

// TestTimeout: a handler past the deadline gets 503 (whether it watched
// its context or not); one within it answers as usual.
func TestTimeout(t *testing.T) {
	app := gwist.New()
	g := app.Group("", middleware.Timeout(100*time.Millisecond))
	g.GET("/watch", func(c *gwist.Ctx) error {
		select {
		case <-c.Context().Done():
			return c.Context().Err()
		case <-time.After(5 * time.Second):
			return c.String(200, "late")
		}
	})
	g.GET("/ignore", func(c *gwist.Ctx) error {
		time.Sleep(200 * time.Millisecond)
		return c.String(200, "late anyway")
	})
	g.GET("/fast", func(c *gwist.Ctx) error {
		if _, ok := c.Context().Deadline(); !ok {
			return c.String(500, "no deadline")
		}
		return c.String(200, "fast")
	})
	url := startApp(t, app)
	client := newClient(t)
	start := time.Now()
	if resp, _ := do(t, client, "GET", url+"/watch", nil, ""); resp.StatusCode != 503 || time.Since(start) > 2*time.Second {
		t.Fatalf("watching handler: %d after %v", resp.StatusCode, time.Since(start))
	}
	if resp, body := do(t, client, "GET", url+"/ignore", nil, ""); resp.StatusCode != 503 {
		t.Fatalf("ignoring handler: %d %q", resp.StatusCode, body)
	}
	if resp, body := do(t, client, "GET", url+"/fast", nil, ""); resp.StatusCode != 200 || string(body) != "fast" {
		t.Fatalf("fast: %d %q", resp.StatusCode, body)
	}
}
