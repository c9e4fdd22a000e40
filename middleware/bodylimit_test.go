package middleware_test

import (
	"strings"
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

func TestBodyLimit(t *testing.T) {
	app := gwist.New()
	app.POST("/small", func(c *gwist.Ctx) error { return c.String(200, string(c.Body())) }, middleware.BodyLimit(10))
	app.POST("/big", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	url := startApp(t, app)
	client := newClient(t)
	if resp, body := do(t, client, "POST", url+"/small", nil, "0123456789"); resp.StatusCode != 200 || string(body) != "0123456789" {
		t.Fatalf("at the limit: %d %q", resp.StatusCode, body)
	}
	if resp, _ := do(t, client, "POST", url+"/small", nil, "0123456789X"); resp.StatusCode != 413 {
		t.Fatalf("over the limit: %d", resp.StatusCode)
	}
	if resp, _ := do(t, client, "POST", url+"/big", nil, strings.Repeat("x", 1000)); resp.StatusCode != 200 {
		t.Fatalf("other route: %d", resp.StatusCode)
	}
}
