package gwist_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// Pipelined requests are answered strictly in order even when the earlier
// ones take longer on the workers.
func TestPipeliningAnswersInOrder(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		app := gwist.New(gwist.WithInline(inline))
		app.GET("/n/:i", func(c *gwist.Ctx) error {
			i, _ := strconv.Atoi(c.Param("i"))
			if !inline && i%7 == 0 {
				// Slower early handlers finish after later ones: the order
				// of responses must not follow. Not a synchronisation.
				time.Sleep(time.Duration(10-i%10) * time.Millisecond)
			}
			return c.String(200, c.Param("i"))
		})
		addr := startApp(t, app)
		r := dialRaw(t, addr)
		const n = 200 // more than MaxPipelined: exercises the pause and resume
		var sb strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&sb, "GET /n/%d HTTP/1.1\r\nHost: x\r\n\r\n", i)
		}
		r.send(sb.String())
		for i := 0; i < n; i++ {
			resp, body := r.readResponse("GET")
			if resp.StatusCode != 200 || body != strconv.Itoa(i) {
				t.Fatalf("response %d: %d %q", i, resp.StatusCode, body)
			}
		}
	})
}

// Requests written in pieces parse as whole ones. (Pieces written apart
// may reach the server in one read; engine.TestRequestSplitAcrossReads
// makes each a read of its own, and http1's split tests cut at every byte.)
func TestRequestSplitAcrossWrites(t *testing.T) {
	app := gwist.New()
	app.POST("/echo", func(c *gwist.Ctx) error { return c.Bytes(200, "text/plain", c.Body()) })
	addr := startApp(t, app)
	r := dialRaw(t, addr)
	req := "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nwxyz"
	for i := 0; i < len(req); i += 7 {
		r.send(req[i:min(i+7, len(req))])
	}
	if resp, body := r.readResponse("POST"); resp.StatusCode != 200 || body != "wxyz" {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
}
