package gwist_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// streamApp serves /stream: it writes "first", flushes, waits for the test
// to say the client saw it, then writes "second", sets a trailer and
// returns. The client reading "first" before the handler went on proves
// the head and body left before the handler returned.
func streamApp(t *testing.T, opts ...gwist.Option) (*gwist.App, chan struct{}) {
	seen := make(chan struct{}, 1)
	app := gwist.New(opts...)
	app.GET("/stream", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Type", "text/plain")
		c.SetHeader("Trailer", "X-Sum")
		if _, err := c.Write([]byte("first,")); err != nil {
			return err
		}
		if err := c.Flush(); err != nil {
			return err
		}
		select {
		case <-seen:
		case <-time.After(10 * time.Second):
			return errors.New("the client never saw the first chunk")
		}
		c.SetTrailer("X-Sum", "42")
		_, err := c.Write([]byte("second"))
		return err
	})
	app.GET("/plain", func(c *gwist.Ctx) error { return c.String(200, "plain") })
	return app, seen
}

// readStream reads /stream's body through resp, signalling seen once the
// first flushed part has arrived.
func readStream(t *testing.T, resp *http.Response, seen chan struct{}) string {
	t.Helper()
	defer resp.Body.Close()
	first := make([]byte, len("first,"))
	if _, err := io.ReadFull(resp.Body, first); err != nil || string(first) != "first," {
		t.Fatalf("first part: %q %v", first, err)
	}
	seen <- struct{}{}
	rest, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("rest of the body: %v", err)
	}
	return string(first) + string(rest)
}

// A flushed response reaches net/http's client while its handler still
// runs, chunked, with its trailer; the connection is then reused.
func TestStreamChunkedTrailerNetHTTP(t *testing.T) {
	app, seen := streamApp(t)
	base := "http://" + startApp(t, app)
	client := newClient(t)
	resp, err := client.Get(base + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	body := readStream(t, resp, seen)
	if body != "first,second" || len(resp.TransferEncoding) != 1 || resp.TransferEncoding[0] != "chunked" ||
		resp.Trailer.Get("X-Sum") != "42" || resp.ContentLength != -1 {
		t.Fatalf("body %q TE %v trailer %v length %d", body, resp.TransferEncoding, resp.Trailer, resp.ContentLength)
	}
	if _, b := get(t, client, base+"/plain"); b != "plain" {
		t.Fatalf("after the stream: %q", b)
	}
}

// The same over HTTPS: the worker encrypts and writes the stream itself.
func TestStreamChunkedTLS(t *testing.T) {
	app, seen := streamApp(t)
	base := "https://" + startTLS(t, app, serverTLSConfig(t))
	client := httpsClient(t, &tls.Config{})
	resp, err := client.Get(base + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	if body := readStream(t, resp, seen); body != "first,second" || resp.Trailer.Get("X-Sum") != "42" {
		t.Fatalf("body %q trailer %v", body, resp.Trailer)
	}
}

// A streamed response followed by pipelined requests: the batch waits for
// the write side, and the responses come back in order on the wire.
func TestStreamPipelinedInOrder(t *testing.T) {
	app, seen := streamApp(t)
	r := dialRaw(t, startApp(t, app))
	r.send("GET /plain HTTP/1.1\r\nHost: x\r\n\r\nGET /stream HTTP/1.1\r\nHost: x\r\n\r\nGET /plain HTTP/1.1\r\nHost: x\r\n\r\n")
	if _, b := r.readResponse("GET"); b != "plain" {
		t.Fatalf("first: %q", b)
	}
	resp, err := http.ReadResponse(r.br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if body := readStream(t, resp, seen); body != "first,second" || resp.Trailer.Get("X-Sum") != "42" {
		t.Fatalf("stream: %q %v", body, resp.Trailer)
	}
	if _, b := r.readResponse("GET"); b != "plain" {
		t.Fatalf("third: %q", b)
	}
}

// An HTTP/1.0 client gets the stream delimited by the close: no
// Content-Length, no chunking, "Connection: close", then EOF.
func TestStreamHTTP10CloseDelimited(t *testing.T) {
	app, seen := streamApp(t)
	r := dialRaw(t, startApp(t, app))
	r.send("GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
	head, err := r.br.ReadString('\n')
	for err == nil {
		var line string
		line, err = r.br.ReadString('\n')
		head += line
		if line == "\r\n" {
			break
		}
	}
	if err != nil || strings.Contains(head, "Content-Length") || strings.Contains(head, "Transfer-Encoding") ||
		!strings.Contains(head, "Connection: close\r\n") {
		t.Fatalf("head %q, %v", head, err)
	}
	first := make([]byte, len("first,"))
	if _, err := io.ReadFull(r.br, first); err != nil {
		t.Fatal(err)
	}
	seen <- struct{}{}
	rest, err := io.ReadAll(r.br)
	if err != nil || string(first)+string(rest) != "first,second" {
		t.Fatalf("body %q%q, %v", first, rest, err)
	}
}

// A Content-Length set by the handler frames the stream raw, and the
// connection stays open when the handler writes exactly that.
func TestStreamContentLength(t *testing.T) {
	app := gwist.New()
	app.GET("/cl", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Length", "10")
		for _, p := range []string{"01234", "56789"} {
			if _, err := c.Write([]byte(p)); err != nil {
				return err
			}
			if err := c.Flush(); err != nil {
				return err
			}
		}
		return nil
	})
	app.GET("/plain", func(c *gwist.Ctx) error { return c.String(200, "plain") })
	r := dialRaw(t, startApp(t, app))
	r.send("GET /cl HTTP/1.1\r\nHost: x\r\n\r\nGET /plain HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, b := r.readResponse("GET")
	if b != "0123456789" || resp.ContentLength != 10 || resp.TransferEncoding != nil || resp.Close {
		t.Fatalf("body %q length %d TE %v close %v", b, resp.ContentLength, resp.TransferEncoding, resp.Close)
	}
	if _, b := r.readResponse("GET"); b != "plain" {
		t.Fatalf("after: %q", b)
	}
}

// Writing more or less than the declared Content-Length: the over-write is
// refused with ErrBodyLength, both are logged, and the connection closes
// after the bytes that fit, so the client sees a truncated body rather than
// the next response parsed out of the excess.
func TestStreamContentLengthMismatchCloses(t *testing.T) {
	rec := &recorder{}
	app := gwist.New(gwist.WithLogger(slog.New(rec)))
	overErr := make(chan error, 1)
	app.GET("/over", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Length", "5")
		if err := c.Flush(); err != nil {
			return err
		}
		_, err := c.Write([]byte("HTTP/1.1 200 OK\r\n\r\n"))
		overErr <- err
		return nil
	})
	app.GET("/under", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Length", "10")
		_, err := c.Write([]byte("abcd"))
		if err == nil {
			err = c.Flush()
		}
		return err
	})
	addr := startApp(t, app)
	for _, path := range []string{"/over", "/under"} {
		t.Run(path, func(t *testing.T) {
			r := dialRaw(t, addr)
			r.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\nGET /over HTTP/1.1\r\nHost: x\r\n\r\n")
			resp, err := http.ReadResponse(r.br, nil)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(resp.Body)
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("body %q, %v: want a truncated body", b, err)
			}
			r.expectClosed()
		})
	}
	if err := <-overErr; !errors.Is(err, gwist.ErrBodyLength) {
		t.Fatalf("over-write: %v", err)
	}
	if n := len(rec.lines(slog.LevelError, "Content-Length")); n != 2 {
		t.Fatalf("%d Content-Length errors logged, want 2", n)
	}
}

// Writes past the stream threshold stream without a Flush; smaller
// responses keep Content-Length.
func TestStreamThreshold(t *testing.T) {
	app := gwist.New(gwist.WithStreamThreshold(8 << 10))
	app.GET("/n", func(c *gwist.Ctx) error {
		n := len(c.Query("kib"))
		for range n {
			if _, err := c.Write(bytes.Repeat([]byte("x"), 1024)); err != nil {
				return err
			}
		}
		return nil
	})
	base := "http://" + startApp(t, app)
	client := newClient(t)
	resp, b := get(t, client, base+"/n?kib=xxxx")
	if resp.ContentLength != 4096 || len(b) != 4096 {
		t.Fatalf("4 KiB: length %d, %d bytes", resp.ContentLength, len(b))
	}
	resp, b = get(t, client, base+"/n?kib="+strings.Repeat("x", 64))
	if resp.ContentLength != -1 || len(resp.TransferEncoding) == 0 || len(b) != 64<<10 {
		t.Fatalf("64 KiB: length %d TE %v, %d bytes", resp.ContentLength, resp.TransferEncoding, len(b))
	}
}

// A buffered response with a trailer is sent chunked to carry it.
func TestBufferedResponseTrailer(t *testing.T) {
	for _, inline := range []bool{false, true} {
		app := gwist.New(gwist.WithInline(inline))
		app.GET("/t", func(c *gwist.Ctx) error {
			c.SetTrailer("X-Sum", "7")
			return c.String(200, "body")
		})
		resp, b := get(t, newClient(t), "http://"+startApp(t, app)+"/t")
		if b != "body" || resp.Trailer.Get("X-Sum") != "7" {
			t.Fatalf("inline %v: body %q trailer %v", inline, b, resp.Trailer)
		}
	}
}

// A client that leaves mid-stream: the handler's Write (or Flush) fails
// with ErrClientGone, and its context is already cancelled when it does.
func TestStreamClientGone(t *testing.T) {
	type result struct {
		err    error
		ctxErr error
	}
	done := make(chan result, 1)
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/forever", func(c *gwist.Ctx) error {
		chunk := bytes.Repeat([]byte("y"), 4096)
		for {
			if _, err := c.Write(chunk); err != nil {
				// The context is done by the time Write reports the error.
				done <- result{err, c.Context().Err()}
				return err
			}
			if err := c.Flush(); err != nil {
				done <- result{err, c.Context().Err()}
				return err
			}
		}
	})
	r := dialRaw(t, startApp(t, app))
	r.send("GET /forever HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(r.br), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 64<<10)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r.c.Close()
	select {
	case res := <-done:
		if !errors.Is(res.err, gwist.ErrClientGone) || res.ctxErr == nil {
			t.Fatalf("Write error %v, context error %v", res.err, res.ctxErr)
		}
		t.Logf("handler saw the client leave %v after the close", time.Since(start))
	case <-time.After(10 * time.Second):
		t.Fatal("the handler kept writing after the client left")
	}
}

// HEAD of a streaming route: the head goes out, the written body is
// dropped, and the connection stays usable.
func TestStreamHEAD(t *testing.T) {
	app := gwist.New()
	app.GET("/s", func(c *gwist.Ctx) error {
		if err := c.Flush(); err != nil {
			return err
		}
		_, err := c.Write([]byte("not for HEAD"))
		return err
	})
	app.GET("/plain", func(c *gwist.Ctx) error { return c.String(200, "plain") })
	r := dialRaw(t, startApp(t, app))
	r.send("HEAD /s HTTP/1.1\r\nHost: x\r\n\r\nGET /plain HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, b := r.readResponse("HEAD"); resp.StatusCode != 200 || b != "" {
		t.Fatalf("HEAD: %d %q", resp.StatusCode, b)
	}
	if _, b := r.readResponse("GET"); b != "plain" {
		t.Fatalf("after HEAD: %q", b)
	}
}
