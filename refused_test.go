package gwist_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gwist/gwist"
)

// A request the engine refuses once its head is in (a body over the limit,
// declared or chunked; bad chunk framing) is answered through the App's
// error handler, with its app-level middleware around it, and the route's
// handler does not run; the connection closes after the answer. A request
// whose head is malformed keeps the engine's own answer.
func TestRefusedRequestsGoThroughErrorHandler(t *testing.T) {
	big := strings.Repeat("x", 2000)
	for _, tc := range []struct {
		name, req string
		status    int
		viaApp    bool
	}{
		{"declared length", "POST /in HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n", 413, true},
		{"expect continue", "POST /in HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n", 413, true},
		{"chunked over", "POST /in HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n" + big + "\r\n", 413, true},
		{"bad chunk", "POST /in HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400, true},
		{"bad head", "POST /in HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n", 400, false},
	} {
		for _, inline := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/inline=%v", tc.name, inline), func(t *testing.T) {
				var mu sync.Mutex
				var seen []string
				ran := false
				app := gwist.New(gwist.WithInline(inline), gwist.WithMaxBodyBytes(1000), gwist.WithLogger(discardLogger()),
					gwist.WithErrorHandler(func(c *gwist.Ctx, err error) {
						var he *gwist.HTTPError
						if !errors.As(err, &he) {
							t.Errorf("error handler got %v, want an *HTTPError", err)
							return
						}
						_ = c.JSON(he.Code, map[string]any{"refused": he.Code, "route": c.Route()})
					}))
				app.Use(func(next gwist.HandlerFunc) gwist.HandlerFunc {
					return func(c *gwist.Ctx) error {
						err := next(c)
						mu.Lock()
						seen = append(seen, fmt.Sprint(c.ResponseStatus()))
						mu.Unlock()
						return err
					}
				})
				app.POST("/in", func(c *gwist.Ctx) error {
					ran = true
					return c.String(200, "read")
				})
				r := dialRaw(t, startApp(t, app))
				r.send(tc.req)
				resp, body := r.readResponse("POST")
				if resp.StatusCode != tc.status {
					t.Fatalf("status %d %q, want %d", resp.StatusCode, body, tc.status)
				}
				if tc.viaApp {
					if want := fmt.Sprintf(`{"refused":%d,"route":"/in"}`, tc.status); strings.TrimSpace(body) != want {
						t.Fatalf("body %q, want the error handler's %s", body, want)
					}
				} else if strings.Contains(body, "refused") {
					t.Fatalf("a malformed head reached the error handler: %q", body)
				}
				if !resp.Close {
					t.Fatalf("no Connection: close on a refusal: %v", resp.Header)
				}
				r.expectClosed()
				mu.Lock()
				defer mu.Unlock()
				if ran {
					t.Fatal("the route's handler ran for a refused request")
				}
				if tc.viaApp && (len(seen) != 1 || seen[0] != fmt.Sprint(tc.status)) {
					t.Fatalf("app middleware saw %v, want [%d]", seen, tc.status)
				}
				if !tc.viaApp && len(seen) != 0 {
					t.Fatalf("app middleware ran for a malformed head: %v", seen)
				}
			})
		}
	}
}
