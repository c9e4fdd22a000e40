package gwist_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

// h2App serves the routes the HTTP/2 tests use.
func h2App(opts ...gwist.Option) *gwist.App {
	app := gwist.New(append([]gwist.Option{gwist.WithHTTP2(true), gwist.WithLogger(discardLogger())}, opts...)...)
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "hello "+c.Protocol()) })
	app.POST("/sum", func(c *gwist.Ctx) error {
		sum := sha256.Sum256(c.Body())
		return c.String(200, fmt.Sprintf("%d %x", len(c.Body()), sum))
	})
	app.GET("/big", func(c *gwist.Ctx) error {
		chunk := bytes.Repeat([]byte("0123456789abcdef"), 2048) // 32 KiB
		for range 320 {                                         // 10 MiB
			if _, err := c.Write(chunk); err != nil {
				return err
			}
		}
		return nil
	})
	app.GET("/ticks", func(c *gwist.Ctx) error {
		for i := range 3 {
			fmt.Fprintf(c, "tick %d\n", i)
			if err := c.Flush(); err != nil {
				return err
			}
			time.Sleep(50 * time.Millisecond)
		}
		c.SetTrailer("X-Ticks", "3")
		return nil
	})
	return app
}

func h2TLSClient(t *testing.T) *http.Client {
	return testkit.Client(t, testkit.H2(&tls.Config{RootCAs: getPKI(t).pool, ServerName: "localhost"}))
}

func h2cClient(t *testing.T) *http.Client { return testkit.Client(t, testkit.H2C()) }

// h2Endpoint is an App served over HTTP/2 and a client for it.
type h2Endpoint struct {
	c    *http.Client
	base string
}

// h2Endpoints serves an App from newApp over TLS (ALPN h2) and another
// over h2c (prior knowledge), each with its client.
func h2Endpoints(t *testing.T, newApp func() *gwist.App) map[string]h2Endpoint {
	return map[string]h2Endpoint{
		"TLS": {h2TLSClient(t), "https://" + startTLS(t, newApp(), serverTLSConfig(t))},
		"h2c": {h2cClient(t), "http://" + startApp(t, newApp())},
	}
}

// Go's HTTP/2 client over TLS (ALPN h2) and over h2c (prior knowledge):
// the handler sees HTTP/2.0, bodies both ways are whole, streamed chunks
// arrive as flushed with their trailer, and concurrent requests share one
// connection.
func TestHTTP2GoClient(t *testing.T) {
	for _, inline := range []bool{false, true} {
		for name, tc := range h2Endpoints(t, func() *gwist.App { return h2App(gwist.WithInline(inline)) }) {
			t.Run(fmt.Sprintf("%s/inline=%v", name, inline), func(t *testing.T) {
				resp, body := get(t, tc.c, tc.base+"/")
				if resp.ProtoMajor != 2 || body != "hello HTTP/2.0" {
					t.Fatalf("%s %q", resp.Proto, body)
				}
				payload := bytes.Repeat([]byte("upload"), 500000) // 3 MB: past every window
				resp, err := tc.c.Post(tc.base+"/sum", "application/octet-stream", bytes.NewReader(payload))
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if want := fmt.Sprintf("%d %x", len(payload), sha256.Sum256(payload)); string(b) != want {
					t.Fatalf("POST: %d %q", resp.StatusCode, b)
				}
				if inline {
					// Nothing streams on the loop, as on HTTP/1: Write
					// gathers the body, sent whole when the handler
					// returns, and the first Flush fails
					// (ErrInlineStreaming), which /ticks returns after
					// one tick, as it gets on HTTP/1. Both used to reach
					// the worker pool's bookkeeping, which an inline App
					// has not: a handler panic, the stream reset.
					resp, body = get(t, tc.c, tc.base+"/big")
					if resp.StatusCode != 200 || len(body) != 10<<20 || body[:16] != "0123456789abcdef" {
						t.Fatalf("/big inline: %d, %d bytes", resp.StatusCode, len(body))
					}
					if resp, body = get(t, tc.c, tc.base+"/ticks"); resp.StatusCode != 200 || body != "tick 0\n" {
						t.Fatalf("/ticks inline: %d %q, want 200 \"tick 0\\n\" as on HTTP/1", resp.StatusCode, body)
					}
					return
				}
				resp, body = get(t, tc.c, tc.base+"/big")
				if len(body) != 10<<20 || body[:16] != "0123456789abcdef" {
					t.Fatalf("/big: %d bytes", len(body))
				}
				resp, err = tc.c.Get(tc.base + "/ticks")
				if err != nil {
					t.Fatal(err)
				}
				br := bufio.NewReader(resp.Body)
				var at []time.Time
				for range 3 {
					if _, err := br.ReadString('\n'); err != nil {
						t.Fatal(err)
					}
					at = append(at, time.Now())
				}
				io.Copy(io.Discard, br)
				resp.Body.Close()
				if at[2].Sub(at[0]) < 80*time.Millisecond || resp.Trailer.Get("X-Ticks") != "3" {
					t.Fatalf("ticks at %v, trailer %v", at, resp.Trailer)
				}
				var wg sync.WaitGroup
				errs := make(chan error, 100)
				for range 100 {
					wg.Go(func() {
						resp, err := tc.c.Get(tc.base + "/")
						if err != nil {
							errs <- err
							return
						}
						b, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						if string(b) != "hello HTTP/2.0" {
							errs <- fmt.Errorf("got %q", b)
						}
					})
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Fatal(err)
				}
			})
		}
	}
}

// By default TLS listeners speak h2 (as net/http) and plaintext ones do
// not take the h2c preface; with WithHTTP2(false) ALPN offers http/1.1
// only.
func TestHTTP2Off(t *testing.T) {
	for _, off := range []bool{false, true} {
		opts := []gwist.Option{gwist.WithLogger(discardLogger())}
		want := "HTTP/2.0"
		if off {
			opts, want = append(opts, gwist.WithHTTP2(false)), "HTTP/1.1"
		}
		app := gwist.New(opts...)
		app.GET("/", func(c *gwist.Ctx) error { return c.String(200, c.Protocol()) })
		resp, body := get(t, h2TLSClient(t), "https://"+startTLS(t, app, serverTLSConfig(t))+"/")
		if resp.Proto != want || body != want {
			t.Fatalf("WithHTTP2(false) %v: %s %q", off, resp.Proto, body)
		}
	}
	app2 := gwist.New(gwist.WithLogger(discardLogger()))
	app2.GET("/", func(c *gwist.Ctx) error { return c.String(200, c.Protocol()) })
	if _, err := h2cClient(t).Get("http://" + startApp(t, app2) + "/"); err == nil || !strings.Contains(err.Error(), "") {
		t.Fatalf("h2c against an app without HTTP/2: %v", err)
	}
}

// A client that cancels an HTTP/2 request mid-stream (RST_STREAM): the
// handler's Write fails and its context is done; a download on the same
// connection goes on, and the connection serves new streams.
func TestHTTP2ClientResetCancels(t *testing.T) {
	ended := make(chan error, 1)
	app := h2App()
	// The loop fails the stream's writes, then ends its context: a write
	// may fail a moment before the context is done (h2Stream.drop).
	contextAfter := func(c *gwist.Ctx) error {
		select {
		case <-c.Context().Done():
		case <-time.After(5 * time.Second):
		}
		return c.Context().Err()
	}
	app.GET("/forever", func(c *gwist.Ctx) error {
		chunk := bytes.Repeat([]byte("z"), 8192)
		for {
			if _, err := c.Write(chunk); err != nil {
				ended <- fmt.Errorf("write: %w (context: %v)", err, contextAfter(c))
				return err
			}
			if err := c.Flush(); err != nil {
				ended <- fmt.Errorf("flush: %w (context: %v)", err, contextAfter(c))
				return err
			}
		}
	})
	base := "https://" + startTLS(t, app, serverTLSConfig(t))
	cl := h2TLSClient(t)
	resp, err := cl.Get(base + "/forever")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, 256<<10)); err != nil {
		t.Fatal(err)
	}
	// Another download on the same connection goes on through the reset.
	other := make(chan string, 1)
	go func() {
		r, err := cl.Get(base + "/big")
		if err != nil {
			other <- err.Error()
			return
		}
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		other <- fmt.Sprintf("%d bytes, %v", len(b), err)
	}()
	resp.Body.Close() // resets the stream
	select {
	case err := <-ended:
		if !strings.Contains(err.Error(), "client gone") || strings.Contains(err.Error(), "context: <nil>") {
			t.Fatalf("handler ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler kept streaming after the client reset the stream")
	}
	if resp, body := get(t, cl, base+"/"); resp.ProtoMajor != 2 || body != "hello HTTP/2.0" {
		t.Fatalf("after the reset: %s %q", resp.Proto, body)
	}
	if got := <-other; got != fmt.Sprintf("%d bytes, <nil>", 10<<20) {
		t.Fatalf("the other download: %s", got)
	}
	if st := app.Stats(); st.HTTP2.ResetByPeer < 1 {
		t.Fatalf("reset not counted: %+v", st.HTTP2)
	}
}

// Shutdown with an HTTP/2 request in flight: the request completes, then
// the connection closes and Shutdown returns.
func TestHTTP2ShutdownFinishesStreams(t *testing.T) {
	app := h2App()
	started := make(chan struct{})
	app.GET("/slow", func(c *gwist.Ctx) error {
		close(started)
		// Still in flight when Shutdown's drain sends the GOAWAY.
		testkit.Eventually(5*time.Second, func() bool { return app.Stats().HTTP2.GoAwaySent["NO_ERROR"] > 0 })
		return c.String(200, "done")
	})
	addr, err := app.StartTLS("127.0.0.1:0", serverTLSConfig(t))
	if err != nil {
		t.Fatal(err)
	}
	cl := h2TLSClient(t)
	got := make(chan string, 1)
	go func() {
		resp, err := cl.Get("https://" + addr.String() + "/slow")
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- fmt.Sprintf("%d %s", resp.StatusCode, b)
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	start := time.Now()
	if err := app.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if r := <-got; r != "200 done" {
		t.Fatalf("in-flight request: %q", r)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("Shutdown took %v", took)
	}
}

// An SSEFeed over HTTP/2 (TLS and h2c): the handler returns, events sent
// later arrive, heartbeats come from the loop, Close ends the stream and
// the connection goes on; a client that cancels ends its feed.
func TestHTTP2SSEFeed(t *testing.T) {
	hub := &feedHub{}
	newApp := func() *gwist.App {
		return feedApp(hub, gwist.WithHTTP2(true), gwist.WithSSEHeartbeat(20*time.Millisecond))
	}
	for name, tc := range h2Endpoints(t, newApp) {
		t.Run(name, func(t *testing.T) {
			hub.mu.Lock()
			hub.feeds = nil
			hub.mu.Unlock()
			resp, err := tc.c.Get(tc.base + "/feed")
			if err != nil {
				t.Fatal(err)
			}
			if resp.ProtoMajor != 2 || resp.Header.Get("Content-Type") != "text/event-stream" {
				t.Fatalf("%s %v", resp.Proto, resp.Header)
			}
			waitFor(t, 5*time.Second, "the feed", func() bool { return len(hub.all()) == 1 })
			f := hub.all()[0]
			br := bufio.NewReader(resp.Body)
			beats := 0
			for beats < 2 {
				line, err := br.ReadString('\n')
				if err != nil {
					t.Fatalf("heartbeats: %v", err)
				}
				if line == ":\n" {
					beats++
				}
			}
			if err := f.Send(gwist.SSEEvent{ID: "1", Data: "over h2"}); err != nil {
				t.Fatal(err)
			}
			if ev := readEvent(t, br); ev != "id: 1\ndata: over h2\n" {
				t.Fatalf("event %q", ev)
			}
			_ = f.Close()
			if rest, err := io.ReadAll(br); err != nil || strings.Trim(string(rest), ":\n") != "" {
				t.Fatalf("after Close: %q %v", rest, err)
			}
			<-f.Done()
			if r, body := get(t, tc.c, tc.base+"/"); r.ProtoMajor != 2 || body != "plain" {
				t.Fatalf("after the feed: %s %q", r.Proto, body)
			}
			// A second feed whose client goes away.
			ctx, cancel := context.WithCancel(context.Background())
			req, _ := http.NewRequestWithContext(ctx, "GET", tc.base+"/feed", nil)
			resp, err = tc.c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, 5*time.Second, "the second feed", func() bool { return len(hub.all()) == 2 })
			cancel()
			resp.Body.Close()
			select {
			case <-hub.all()[1].Done():
			case <-time.After(10 * time.Second):
				t.Fatal("the feed of a client that cancelled is still open")
			}
		})
	}
}

// c.TLS() on an HTTP/2 stream reports the connection's state (ALPN h2).
func TestHTTP2CtxTLS(t *testing.T) {
	app := h2App()
	app.GET("/alpn", func(c *gwist.Ctx) error {
		st := c.TLS()
		if st == nil {
			return c.String(200, "no TLS state")
		}
		return c.String(200, st.NegotiatedProtocol)
	})
	if resp, body := get(t, h2TLSClient(t), "https://"+startTLS(t, app, serverTLSConfig(t))+"/alpn"); resp.ProtoMajor != 2 || body != "h2" {
		t.Fatalf("%s %q", resp.Proto, body)
	}
}

// App.Stats counts HTTP/2 streams, resets both ways and GOAWAYs by reason.
func TestHTTP2Stats(t *testing.T) {
	app := h2App()
	app.GET("/stream", func(c *gwist.Ctx) error {
		for {
			if _, err := c.Write(bytes.Repeat([]byte("s"), 8192)); err != nil {
				return err
			}
			if err := c.Flush(); err != nil {
				return err
			}
		}
	})
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + addr.String()
	cl := h2cClient(t)
	for range 3 {
		get(t, cl, base+"/")
	}
	resp, err := cl.Get(base + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	io.ReadFull(resp.Body, make([]byte, 64<<10))
	resp.Body.Close() // RST_STREAM from the client
	// A broken client: the preface, then a SETTINGS frame of 5 bytes.
	r := dialRaw(t, addr.String())
	r.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + "\x00\x00\x05\x04\x00\x00\x00\x00\x00" + "12345")
	io.Copy(io.Discard, r.br) // the server's SETTINGS, then GOAWAY and the close
	r.c.Close()
	waitFor(t, 5*time.Second, "the counters", func() bool {
		st := app.Stats().HTTP2
		return st.StreamsOpened >= 4 && st.ResetByPeer >= 1 && st.GoAwaySent["FRAME_SIZE_ERROR"] == 1
	})
	waitFor(t, 5*time.Second, "HTTP2Conns back to the Go client's 1", func() bool { return app.Stats().HTTP2Conns == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := app.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if st := app.Stats().HTTP2; st.GoAwaySent["NO_ERROR"] != 1 {
		t.Fatalf("after Shutdown: %+v", st)
	}
}

// A StreamBody route over HTTP/2: a 20 MiB upload (far past the 1 MiB
// windows) streams to the handler and hashes right, over TLS and h2c; over
// the route's limit is a 413; a handler that does not read holds the
// client back (the window is refilled only as it reads).
func TestHTTP2StreamedBody(t *testing.T) {
	slowRead := make(chan int64, 1)
	var apps []*gwist.App
	newApp := func() *gwist.App {
		app := h2App()
		up := app.StreamBody(0)
		up.POST("/upload", func(c *gwist.Ctx) error {
			h := sha256.New()
			n, err := io.Copy(h, c.BodyReader())
			if err != nil {
				return err
			}
			return c.String(200, fmt.Sprintf("%d %x", n, h.Sum(nil)))
		})
		app.StreamBody(1<<20).POST("/small", func(c *gwist.Ctx) error {
			_, err := io.Copy(io.Discard, c.BodyReader())
			return err
		})
		up.POST("/slow", func(c *gwist.Ctx) error {
			time.Sleep(300 * time.Millisecond) // the client sends what the windows allow, then waits
			slowRead <- c.Request().ContentLength
			n, err := io.Copy(io.Discard, c.BodyReader())
			if err != nil {
				return err
			}
			return c.String(200, fmt.Sprint(n))
		})
		apps = append(apps, app)
		return app
	}
	for name, tc := range h2Endpoints(t, newApp) {
		t.Run(name, func(t *testing.T) {
			payload := bytes.Repeat([]byte("0123456789abcdef"), 20<<16) // 20 MiB
			resp, err := tc.c.Post(tc.base+"/upload", "application/octet-stream", bytes.NewReader(payload))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want := fmt.Sprintf("%d %x", len(payload), sha256.Sum256(payload)); resp.ProtoMajor != 2 || string(b) != want {
				t.Fatalf("%s %d %q", resp.Proto, resp.StatusCode, b)
			}
			resp, err = tc.c.Post(tc.base+"/small", "application/octet-stream", bytes.NewReader(payload[:2<<20]))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 413 {
				t.Fatalf("over the route's limit: %d", resp.StatusCode)
			}
			resp, err = tc.c.Post(tc.base+"/slow", "application/octet-stream", bytes.NewReader(payload[:8<<20]))
			if err != nil {
				t.Fatal(err)
			}
			b, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			<-slowRead
			if string(b) != fmt.Sprint(8<<20) {
				t.Fatalf("slow reader: %d %q", resp.StatusCode, b)
			}
		})
	}
	// What waited for a handler never passed the stream's 1 MiB window.
	for _, app := range apps {
		if peak := app.Stats().Backpressure.PeakBodyBuffered; peak == 0 || peak > 1<<20 {
			t.Fatalf("peak body bytes buffered %d, want (0, 1 MiB]", peak)
		}
	}
}

// nghttp2's h2load against the App, over TLS and h2c: every request of
// 4 connections × 25 concurrent streams succeeds. Skipped without h2load
// (Debian's nghttp2-client; .ci/run installs it).
func TestH2load(t *testing.T) {
	h2load, err := exec.LookPath("h2load")
	if err != nil {
		t.Skip("h2load not installed (apt-get install nghttp2-client)")
	}
	for name, url := range map[string]string{
		"h2c": "http://" + startApp(t, h2App()) + "/",
		"TLS": "https://" + startTLS(t, h2App(), serverTLSConfig(t)) + "/",
	} {
		t.Run(name, func(t *testing.T) {
			out, err := exec.Command(h2load, "-n", "5000", "-c", "4", "-m", "25", url).CombinedOutput()
			if err != nil {
				t.Fatalf("h2load: %v\n%s", err, out)
			}
			if !strings.Contains(string(out), "5000 succeeded, 0 failed, 0 errored") ||
				!strings.Contains(string(out), "Application protocol: h2") && !strings.Contains(string(out), "Application protocol: h2c") {
				t.Fatalf("h2load:\n%s", out)
			}
		})
	}
}

// With every worker busy, a new HTTP/2 stream gets 503 with Retry-After
// while the connection and the busy stream go on.
func TestHTTP2WorkersFull(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	app := h2App(gwist.WithWorkers(1))
	app.GET("/block", func(c *gwist.Ctx) error {
		close(started)
		<-release
		return c.String(200, "done")
	})
	base := "http://" + startApp(t, app)
	cl := h2cClient(t)
	blocked := make(chan string, 1)
	go func() {
		resp, err := cl.Get(base + "/block")
		if err != nil {
			blocked <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		blocked <- string(b)
	}()
	<-started
	resp, err := cl.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" || resp.ProtoMajor != 2 {
		t.Fatalf("with the pool full: %s %d %v", resp.Proto, resp.StatusCode, resp.Header)
	}
	close(release)
	if got := <-blocked; got != "done" {
		t.Fatalf("the busy stream: %q", got)
	}
	waitFor(t, 5*time.Second, "the pool to take work again", func() bool {
		resp, err := cl.Get(base + "/")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	})
}
