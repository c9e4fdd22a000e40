package gwist_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/gwist/gwist"
)

// HEAD on an event stream route (SSEFeed, and SSE) answers 200 with the
// head a GET gets and no body, over HTTP/1.1 and HTTP/2 (h2c), as net/http
// does; curl -I is the client.
func TestSSEHead(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed")
	}
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
	app.GET("/feed", func(c *gwist.Ctx) error {
		feed, err := c.SSEFeed()
		if err != nil {
			return err
		}
		if err := feed.Send(gwist.SSEEvent{Data: "1"}); err != nil {
			return feed.Close()
		}
		return feed.Close()
	})
	app.GET("/sse", func(c *gwist.Ctx) error {
		return c.SSE(func(s *gwist.SSE) error { return s.Send(gwist.SSEEvent{Data: "1"}) })
	})
	base := "http://" + startApp(t, app)
	for _, path := range []string{"/feed", "/sse"} {
		for _, proto := range []string{"--http1.1", "--http2-prior-knowledge"} {
			out, err := exec.Command(curl, "-sS", "-I", "-m", "5", proto, base+path).CombinedOutput()
			head := strings.ToLower(string(out))
			if err != nil || !strings.HasPrefix(head, "http/") || !strings.Contains(head, " 200") ||
				!strings.Contains(head, "content-type: text/event-stream") ||
				!strings.Contains(head, "cache-control: no-cache") || strings.Contains(head, "content-length") {
				t.Fatalf("HEAD %s %s: %v\n%s", path, proto, err, out)
			}
		}
	}
}
