package gwist_test

import (
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
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

// A client that goes away mid-body makes the handler's Read fail with
// ErrBodyAborted at once, and the request's context is done.
func TestStreamBodyClientLeaves(t *testing.T) {
	got := make(chan error, 1)
	var ctxDone atomic.Bool
	all := make(chan struct{}) // the handler has read what was sent
	const sent = 100 << 10
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.StreamBody(0).POST("/up", func(c *gwist.Ctx) error {
		_, err := io.CopyN(io.Discard, c.BodyReader(), sent)
		if err == nil {
			close(all)
			_, err = io.Copy(io.Discard, c.BodyReader()) // waits in Read for the rest
		}
		ctxDone.Store(c.Context().Err() != nil)
		got <- err
		return err
	})
	rc := dialRaw(t, startApp(t, app))
	rc.send("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 1000000\r\n\r\n" + strings.Repeat("x", sent))
	select {
	case <-all: // the handler is waiting in Read now, or about to
	case err := <-got:
		t.Fatalf("Read returned %v before the client left", err)
	}
	start := time.Now()
	rc.c.Close()
	select {
	case err := <-got:
		if !errors.Is(err, gwist.ErrBodyAborted) || !ctxDone.Load() {
			t.Fatalf("Read returned %v (context done: %v), want ErrBodyAborted", err, ctxDone.Load())
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("Read failed %v after the client left", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Read did not fail after the client left")
	}
}

// A body over the route's limit: a declared Content-Length is refused with
// 413 before the handler runs; a chunked body fails the handler's Read with
// ErrBodyTooLarge and the client gets 413 (also when the handler answers
// otherwise); the connection closes either way.
func TestStreamBodyOverLimit(t *testing.T) {
	var ran atomic.Int32
	app := gwist.New(gwist.WithLogger(discardLogger()))
	s := app.StreamBody(1000)
	s.POST("/up", func(c *gwist.Ctx) error {
		ran.Add(1)
		_, err := io.Copy(io.Discard, c.BodyReader())
		if err != nil && !errors.Is(err, gwist.ErrBodyTooLarge) {
			return errors.New("not ErrBodyTooLarge: " + err.Error())
		}
		return err
	})
	s.POST("/ignore", func(c *gwist.Ctx) error {
		_, _ = io.Copy(io.Discard, c.BodyReader())
		return c.String(200, "fine")
	})
	addr := startApp(t, app)

	rc := dialRaw(t, addr)
	rc.send("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 1001\r\n\r\n")
	if resp, _ := rc.readResponse("POST"); resp.StatusCode != 413 {
		t.Fatalf("declared: %d", resp.StatusCode)
	}
	rc.expectClosed()
	if ran.Load() != 0 {
		t.Fatal("the handler ran for a declared length over the limit")
	}

	for _, path := range []string{"/up", "/ignore"} {
		rc = dialRaw(t, addr)
		rc.send("POST " + path + " HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"200\r\n" + strings.Repeat("a", 512) + "\r\n200\r\n" + strings.Repeat("b", 512) + "\r\n0\r\n\r\n")
		resp, _ := rc.readResponse("POST")
		if resp.StatusCode != 413 || !resp.Close {
			t.Fatalf("%s chunked: %d close=%v", path, resp.StatusCode, resp.Close)
		}
		rc.expectClosed()
	}
	// Within the limit all is well.
	rc = dialRaw(t, addr)
	rc.send("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 1000\r\n\r\n" + strings.Repeat("z", 1000))
	if resp, _ := rc.readResponse("POST"); resp.StatusCode != 200 {
		t.Fatalf("at the limit: %d", resp.StatusCode)
	}
}

// Malformed chunk framing mid-stream fails the handler's Read with
// ErrBodyFraming, the client gets 400 and the connection closes, and
// nothing sent after it runs.
func TestStreamBodyMalformedChunk(t *testing.T) {
	got := make(chan error, 1)
	first := make(chan struct{}) // the handler has read the first chunk
	var after atomic.Int32
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.StreamBody(0).POST("/up", func(c *gwist.Ctx) error {
		_, err := io.CopyN(io.Discard, c.BodyReader(), 5)
		if err == nil {
			close(first)
			_, err = io.Copy(io.Discard, c.BodyReader())
		}
		got <- err
		return err
	})
	app.GET("/after", func(c *gwist.Ctx) error { after.Add(1); return nil })
	rc := dialRaw(t, startApp(t, app))
	rc.send("POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n")
	select {
	case <-first: // mid-stream: the malformed chunk comes after it
	case err := <-got:
		t.Fatalf("Read returned %v after the first chunk", err)
	}
	rc.send("zz\r\nGET /after HTTP/1.1\r\nHost: a\r\n\r\n")
	if err := <-got; !errors.Is(err, gwist.ErrBodyFraming) {
		t.Fatalf("Read returned %v, want ErrBodyFraming", err)
	}
	if resp, _ := rc.readResponse("POST"); resp.StatusCode != 400 {
		t.Fatalf("%d", resp.StatusCode)
	}
	rc.expectClosed()
	if after.Load() != 0 {
		t.Fatal("a request after the malformed body ran")
	}
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

// WithBodyReadTimeout applies to a streamed body while the handler waits
// for bytes that do not come (Read fails, 408, close). That it does not
// while the handler is the one not reading (the ring is full, the client
// is held back by the server) is engine.TestStreamedBodyReadTimeout, on
// the engine's clock.
func TestStreamBodyReadTimeout(t *testing.T) {
	got := make(chan error, 1)
	app := gwist.New(gwist.WithBodyReadTimeout(500*time.Millisecond), gwist.WithLogger(discardLogger()))
	s := app.StreamBody(0)
	s.POST("/up", func(c *gwist.Ctx) error {
		_, err := io.Copy(io.Discard, c.BodyReader())
		got <- err
		return err
	})
	addr := startApp(t, app)

	rc := dialRaw(t, addr)
	rc.send("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n" + strings.Repeat("x", 10))
	select {
	case err := <-got:
		if !errors.Is(err, gwist.ErrBodyReadTimeout) {
			t.Fatalf("Read returned %v", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("no timeout")
	}
	if resp, _ := rc.readResponse("POST"); resp.StatusCode != 408 {
		t.Fatalf("%d", resp.StatusCode)
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
