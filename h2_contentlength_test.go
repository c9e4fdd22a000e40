package gwist_test

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
	xh2 "golang.org/x/net/http2"
)

// contentLengthApp has handlers whose Content-Length does not match what
// they send: one fails after setting it, one streams less, one more.
func contentLengthApp() *gwist.App {
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
	app.GET("/fails", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Length", "1000")
		return gwist.NewHTTPError(409, "conflict after all")
	})
	app.GET("/short", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Length", "100")
		if _, err := c.Write([]byte("ten bytes!")); err != nil {
			return err
		}
		return c.Flush()
	})
	app.GET("/long", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Length", "5")
		if err := c.Flush(); err != nil {
			return err
		}
		if _, err := c.Write([]byte("more than five")); err == nil {
			panic("a write past the Content-Length succeeded")
		}
		return nil
	})
	return app
}

// A Content-Length a handler set must not go out over HTTP/2 when the body
// differs (RFC 9113 section 8.1.1): the error response that replaced the
// handler's carries its own length, and curl (which failed on the
// mismatch) reads it whole, over h2c and TLS as over HTTP/1.1.
func TestHTTP2ContentLengthOfErrorResponse(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed")
	}
	app := contentLengthApp()
	plain := "http://" + startApp(t, app)
	secure := "https://" + startTLS(t, app, serverTLSConfig(t))
	for _, tc := range [][]string{
		{"--http2-prior-knowledge", plain}, {"--http2", secure}, {"--http1.1", plain},
	} {
		out, err := exec.Command(curl, "-sS", "-i", "-m", "5", "-k", tc[0], tc[1]+"/fails").CombinedOutput()
		s := strings.ToLower(string(out))
		if err != nil || !strings.Contains(s, " 409") || !strings.Contains(s, "conflict after all") ||
			strings.Contains(s, "content-length: 1000") {
			t.Fatalf("curl %s: %v\n%s", tc[0], err, out)
		}
	}
}

// A streamed response whose body falls short of (or goes past) its
// Content-Length is cut with RST_STREAM INTERNAL_ERROR, never ended with
// END_STREAM as if it were complete; the handler's write past it fails.
func TestHTTP2ContentLengthOfStreamedResponse(t *testing.T) {
	c := dialH2Raw(t, startApp(t, contentLengthApp()), true)
	for i, path := range []string{"/short", "/long"} {
		id := uint32(1 + 2*i)
		c.request(id, true, ":method", "GET", ":scheme", "http", ":path", path, ":authority", "localhost")
		c.wait(5*time.Second, path+" reset", func() bool { _, ok := c.rst[id]; return ok || c.ended[id] })
		c.mu.Lock()
		code, ok := c.rst[id]
		ended := c.ended[id]
		c.mu.Unlock()
		if !ok || code != xh2.ErrCodeInternal || ended {
			t.Fatalf("%s: reset %v (%v), END_STREAM %v", path, ok, code, ended)
		}
	}
}
