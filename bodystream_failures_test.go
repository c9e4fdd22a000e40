package gwist_test

import (
	"errors"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

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
