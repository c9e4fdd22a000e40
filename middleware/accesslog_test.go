package middleware_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

// TestAccessLogFields checks one line per request with the final status
// and size, for a route, the router's 404 and a recovered panic.
func TestAccessLogFields(t *testing.T) {
	var logs logBuffer
	app := gwist.New(gwist.WithLogger(logs.logger()))
	app.Use(middleware.RequestID(), middleware.AccessLog(nil), middleware.Recover())
	app.GET("/users/:id", func(c *gwist.Ctx) error { return c.String(200, "user "+c.Param("id")) })
	app.GET("/panic", func(c *gwist.Ctx) error { panic("boom") })
	url := startApp(t, app)
	client := newClient(t)
	do(t, client, "GET", url+"/users/7", map[string]string{"X-Request-ID": "rid-1"}, "")
	do(t, client, "GET", url+"/nope", map[string]string{"X-Request-ID": "rid-2"}, "")
	do(t, client, "GET", url+"/panic", map[string]string{"X-Request-ID": "rid-3"}, "")

	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if m["msg"] == "request" {
			lines = append(lines, m)
		}
	}
	want := []struct {
		route, path, id string
		status, bytes   float64
	}{
		{"/users/:id", "/users/7", "rid-1", 200, 6},
		{"", "/nope", "rid-2", 404, 10},
		{"/panic", "/panic", "rid-3", 500, 22},
	}
	if len(lines) != len(want) {
		t.Fatalf("%d access log lines, want %d:\n%s", len(lines), len(want), logs.String())
	}
	for i, w := range want {
		l := lines[i]
		if l["method"] != "GET" || l["route"] != w.route || l["path"] != w.path || l["status"] != w.status ||
			l["bytes"] != w.bytes || l["request_id"] != w.id || !strings.HasPrefix(l["remote"].(string), "127.0.0.1:") {
			t.Errorf("line %d: %v, want %+v", i, l, w)
		}
		if d, ok := l["duration"].(float64); !ok || d <= 0 {
			t.Errorf("line %d: duration %v", i, l["duration"])
		}
	}
}
