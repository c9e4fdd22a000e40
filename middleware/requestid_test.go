package middleware_test

import (
	"strings"
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

func TestRequestID(t *testing.T) {
	app := gwist.New()
	app.Use(middleware.RequestID())
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, middleware.GetRequestID(c)) })
	url := startApp(t, app)
	client := newClient(t)

	resp, body := do(t, client, "GET", url+"/", map[string]string{"X-Request-ID": "abc-123.x:y_z"}, "")
	if got := resp.Header.Get("X-Request-ID"); got != "abc-123.x:y_z" || string(body) != got {
		t.Fatalf("sane incoming ID: header %q, handler saw %q", got, body)
	}
	seen := map[string]bool{}
	for _, in := range []string{"", "has space", "<script>", strings.Repeat("a", 129), "semi;colon"} {
		resp, body := do(t, client, "GET", url+"/", map[string]string{"X-Request-ID": in}, "")
		id := resp.Header.Get("X-Request-ID")
		if id == "" || id == in || string(body) != id || seen[id] {
			t.Fatalf("incoming %q: got %q (handler %q), want a new unique ID", in, id, body)
		}
		seen[id] = true
	}
}
