package gwist_test

import (
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// TestBareCRAtEndIsImmediate400: a CR followed by anything but LF where
// the empty line ending the head or the trailer section should be is a
// 400 and a close at once, not a wait for the 10 s header-read or 30 s
// body-read timeout (408). The 2 s bound is 5× below the shorter timeout,
// so only a parser that waits could miss it.
func TestBareCRAtEndIsImmediate400(t *testing.T) {
	app := gwist.New()
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "x") })
	app.POST("/", func(c *gwist.Ctx) error { return c.String(200, "x") })
	addr := startApp(t, app)
	for _, tc := range []struct{ name, req string }{
		{"head", "GET / HTTP/1.1\r\nHost: x\r\n\rX"},
		{"trailer", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\rM"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dialRaw(t, addr)
			start := time.Now()
			_ = r.c.SetDeadline(start.Add(2 * time.Second))
			r.send(tc.req)
			resp, _ := r.readResponse("GET")
			if resp.StatusCode != 400 || !resp.Close {
				t.Fatalf("status %d close=%v, want 400 and Connection: close", resp.StatusCode, resp.Close)
			}
			r.expectClosed()
			t.Logf("400 and close after %v", time.Since(start))
		})
	}
}
