package middleware_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

// TestRecover checks a panic becomes a 500 answered by the error handler,
// with the stack logged, headers set before it kept and the handler's own
// dropped; and that a panic after streaming began cuts the body off.
func TestRecover(t *testing.T) {
	var logs logBuffer
	app := gwist.New(gwist.WithLogger(logs.logger()), gwist.WithStreamThreshold(1024),
		gwist.WithErrorHandler(func(c *gwist.Ctx, err error) {
			var pe *gwist.PanicError
			if errors.As(err, &pe) {
				_ = c.String(500, fmt.Sprintf("recovered %v", pe.Value))
				return
			}
			gwist.DefaultErrorHandler(c, err)
		}))
	app.Use(middleware.RequestID(), middleware.Recover())
	app.GET("/panic", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Type", "application/json").SetHeader("ETag", `"x"`)
		_, _ = c.Write([]byte(`{"partial":`))
		panic("kaboom")
	})
	app.GET("/stream-panic", func(c *gwist.Ctx) error {
		_, _ = c.Write([]byte(strings.Repeat("x", 4096)))
		panic("mid-stream")
	})
	url := startApp(t, app)
	client := newClient(t)
	resp, body := do(t, client, "GET", url+"/panic", map[string]string{"X-Request-ID": "r-9"}, "")
	if resp.StatusCode != 500 || string(body) != "recovered kaboom" || resp.Header.Get("X-Request-ID") != "r-9" ||
		resp.Header.Get("ETag") != "" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("panic answer: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	l := logs.String()
	for _, want := range []string{`"msg":"gwist: handler panic"`, `"panic":"kaboom"`, `"request_id":"r-9"`, `"route":"/panic"`, "recover_test.go"} {
		if !strings.Contains(l, want) {
			t.Errorf("log lacks %s:\n%s", want, l)
		}
	}
	req, _ := newRequest("GET", url+"/stream-panic")
	if r, err := client.Do(req); err == nil {
		_, err = readAll(r)
		if err == nil {
			t.Fatal("a streamed response cut off by a panic read as complete")
		}
	}
}
