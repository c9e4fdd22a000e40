package gwist_test

import (
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// expectNothing checks that the server sends nothing for d.
func (r *rawConn) expectNothing(d time.Duration) {
	r.t.Helper()
	_ = r.c.SetReadDeadline(time.Now().Add(d))
	b, err := r.br.Peek(1)
	var ne net.Error
	if len(b) > 0 || !errors.As(err, &ne) || !ne.Timeout() {
		r.t.Fatalf("expected silence, got %q %v", b, err)
	}
	_ = r.c.SetReadDeadline(time.Now().Add(10 * time.Second))
}

// readLine reads one CRLF-terminated line.
func (r *rawConn) readLine() string {
	r.t.Helper()
	s, err := r.br.ReadString('\n')
	if err != nil {
		r.t.Fatalf("reading a line: %v (got %q)", err, s)
	}
	return s
}

// "100 Continue" goes out when the handler first reads, not when the head
// arrives; a handler that answers without reading sends none, and the
// connection closes after its response (the client may never send the
// body, so what it sends next cannot be taken for body bytes).
func TestStreamBodyExpectContinue(t *testing.T) {
	read := make(chan struct{})
	app := gwist.New()
	s := app.StreamBody(0)
	s.PUT("/read", func(c *gwist.Ctx) error {
		<-read
		b, err := io.ReadAll(c.BodyReader())
		if err != nil {
			return err
		}
		return c.String(200, "got "+string(b))
	})
	s.PUT("/deny", func(c *gwist.Ctx) error {
		return c.String(401, "no")
	})
	addr := startApp(t, app)

	rc := dialRaw(t, addr)
	rc.send("PUT /read HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
	rc.expectNothing(300 * time.Millisecond) // the handler has not read yet
	close(read)
	if l := rc.readLine(); l != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("got %q, want 100 Continue", l)
	}
	if l := rc.readLine(); l != "\r\n" {
		t.Fatalf("got %q after 100 Continue", l)
	}
	rc.send("hello")
	if resp, body := rc.readResponse("PUT"); resp.StatusCode != 200 || body != "got hello" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}

	rc = dialRaw(t, addr)
	rc.send("PUT /deny HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
	resp, body := rc.readResponse("PUT") // fails on a 100 first: ReadResponse returns it
	if resp.StatusCode != 401 || body != "no" || !resp.Close {
		t.Fatalf("%d %q close=%v", resp.StatusCode, body, resp.Close)
	}
	rc.expectClosed()
}

// Requests pipelined after a streamed body are answered after it, in
// order, also when the upload's handler is the slowest; with WithInline
// too, where the streamed route runs on the worker pool and the others on
// the loop.
func TestStreamBodyPipelined(t *testing.T) {
	for _, inline := range []bool{false, true} {
		app := gwist.New(gwist.WithInline(inline))
		app.StreamBody(0).POST("/up", func(c *gwist.Ctx) error {
			b, err := io.ReadAll(c.BodyReader())
			if err != nil {
				return err
			}
			time.Sleep(100 * time.Millisecond)
			return c.String(200, "up "+strconv.Itoa(len(b)))
		})
		app.GET("/n/:n", func(c *gwist.Ctx) error { return c.String(200, "n "+c.Param("n")) })
		rc := dialRaw(t, startApp(t, app))
		big := strings.Repeat("q", 300<<10) // more than the ring: the loop pauses mid-body
		rc.send("GET /n/0 HTTP/1.1\r\nHost: a\r\n\r\n" +
			"POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: " + strconv.Itoa(len(big)) + "\r\n\r\n" + big +
			"GET /n/1 HTTP/1.1\r\nHost: a\r\n\r\n" +
			"POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n" +
			"GET /n/2 HTTP/1.1\r\nHost: a\r\n\r\n")
		for _, want := range []string{"n 0", "up " + strconv.Itoa(len(big)), "n 1", "up 3", "n 2"} {
			method := "GET"
			if strings.HasPrefix(want, "up") {
				method = "POST"
			}
			if resp, body := rc.readResponse(method); resp.StatusCode != 200 || body != want {
				t.Fatalf("inline=%v: %d %q, want %q", inline, resp.StatusCode, body, want)
			}
		}
	}
}

// A handler that answers without reading its body: a small rest is
// discarded and the connection kept (the next request is served); a large
// declared rest closes the connection after the response.
func TestStreamBodyUnread(t *testing.T) {
	app := gwist.New()
	app.StreamBody(0).POST("/skip", func(c *gwist.Ctx) error { return c.String(200, "skipped") })
	app.GET("/next", func(c *gwist.Ctx) error { return c.String(200, "next") })
	addr := startApp(t, app)

	for _, body := range []string{
		"Content-Length: 100000\r\n\r\n" + strings.Repeat("s", 100000),
		"Transfer-Encoding: chunked\r\n\r\n" + "186a0\r\n" + strings.Repeat("s", 100000) + "\r\n0\r\n\r\n",
	} {
		rc := dialRaw(t, addr)
		rc.send("POST /skip HTTP/1.1\r\nHost: a\r\n" + body + "GET /next HTTP/1.1\r\nHost: a\r\n\r\n")
		if resp, b := rc.readResponse("POST"); resp.StatusCode != 200 || b != "skipped" || resp.Close {
			t.Fatalf("%d %q close=%v", resp.StatusCode, b, resp.Close)
		}
		if resp, b := rc.readResponse("GET"); resp.StatusCode != 200 || b != "next" {
			t.Fatalf("after a skipped body: %d %q", resp.StatusCode, b)
		}
	}

	rc := dialRaw(t, addr)
	rc.send("POST /skip HTTP/1.1\r\nHost: a\r\nContent-Length: 10000000\r\n\r\n" + strings.Repeat("s", 1000))
	if resp, b := rc.readResponse("POST"); resp.StatusCode != 200 || b != "skipped" || !resp.Close {
		t.Fatalf("large rest: %d %q close=%v", resp.StatusCode, b, resp.Close)
	}
	rc.expectClosed()
}

// With WithInline(true) a streamed-body route still runs on the worker
// pool: its handler waiting for body bytes does not hold up the event loop
// (one loop here), whose other connections are served meanwhile.
func TestStreamBodyInlineRunsOnPool(t *testing.T) {
	started := make(chan struct{})
	app := gwist.New(gwist.WithInline(true), gwist.WithLoops(1))
	app.StreamBody(0).POST("/up", func(c *gwist.Ctx) error {
		close(started)
		return hashUpload(c)
	})
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "hi") })
	addr := startApp(t, app)
	up := dialRaw(t, addr)
	up.send("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nhello")
	select {
	case <-started: // before the body's end: it streams, and now waits in Read
	case <-time.After(5 * time.Second):
		t.Fatal("the handler did not start before its body was complete")
	}
	start := time.Now()
	other := dialRaw(t, addr)
	other.send("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	if resp, body := other.readResponse("GET"); resp.StatusCode != 200 || body != "hi" || time.Since(start) > time.Second {
		t.Fatalf("%d %q after %v", resp.StatusCode, body, time.Since(start))
	}
	up.send("world")
	if resp, body := up.readResponse("POST"); resp.StatusCode != 200 || !strings.Contains(body, `"bytes":10`) {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
}

// On an app with streaming routes, a buffered route keeps its limit and
// its behaviour: a declared body over WithMaxBodyBytes gets 413 at once,
// without "100 Continue" first; within it, 100 Continue comes with the head.
func TestBufferedRouteBesideStreamingRoutes(t *testing.T) {
	app := gwist.New(gwist.WithMaxBodyBytes(100))
	app.StreamBody(0).POST("/stream", hashUpload)
	app.POST("/buffered", func(c *gwist.Ctx) error { return c.String(200, strconv.Itoa(len(c.Body()))) })
	addr := startApp(t, app)

	rc := dialRaw(t, addr)
	rc.send("POST /buffered HTTP/1.1\r\nHost: a\r\nContent-Length: 101\r\nExpect: 100-continue\r\n\r\n")
	if resp, _ := rc.readResponse("POST"); resp.StatusCode != 413 {
		t.Fatalf("%d, want 413 (and no 100 Continue)", resp.StatusCode)
	}
	rc.expectClosed()

	rc = dialRaw(t, addr)
	rc.send("POST /buffered HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n")
	if l := rc.readLine(); l != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("got %q", l)
	}
	rc.readLine()
	rc.send(strings.Repeat("b", 100))
	if resp, body := rc.readResponse("POST"); resp.StatusCode != 200 || body != "100" {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	// The streaming route has no limit.
	rc.send("POST /stream HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n" + strings.Repeat("s", 1000))
	if resp, body := rc.readResponse("POST"); resp.StatusCode != 200 || !strings.Contains(body, `"bytes":1000`) {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
}
