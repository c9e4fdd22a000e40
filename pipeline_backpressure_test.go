package gwist_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/internal/testkit"
)

// seqApp answers GET /n/:i with i, so a client can check that pipelined
// responses come back complete and in order.
func seqApp(inline bool, opts ...gwist.Option) *gwist.App {
	app := gwist.New(append([]gwist.Option{gwist.WithInline(inline)}, opts...)...)
	app.GET("/n/:i", func(c *gwist.Ctx) error { return c.String(200, c.Param("i")) })
	return app
}

func seqRequests(n int) []byte {
	var buf bytes.Buffer
	for i := range n {
		fmt.Fprintf(&buf, "GET /n/%d HTTP/1.1\r\nHost: x\r\n\r\n", i)
	}
	return buf.Bytes()
}

// pipelineAll sends n pipelined requests from a goroutine, in writes of
// chunk bytes (0: one write), while it reads the responses, and checks
// every one is a 200 carrying its sequence number, in order.
func pipelineAll(t *testing.T, addr string, n, chunk int) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	pipelineOn(t, c, n, chunk)
}

func pipelineOn(t *testing.T, c net.Conn, n, chunk int) {
	t.Helper()
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	reqs := seqRequests(n)
	werr := make(chan error, 1)
	go func() {
		p := reqs
		if chunk <= 0 {
			chunk = len(p)
		}
		for len(p) > 0 {
			k := min(chunk, len(p))
			if _, err := c.Write(p[:k]); err != nil {
				werr <- err
				return
			}
			p = p[k:]
		}
		werr <- nil
	}()
	br := bufio.NewReaderSize(c, 64<<10)
	for i := range n {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d of %d (%d bytes of requests): %v", i, n, len(reqs), err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || string(body) != strconv.Itoa(i) {
			t.Fatalf("response %d: %d %q %v", i, resp.StatusCode, body, err)
		}
	}
	if err := <-werr; err != nil {
		t.Fatalf("writing the requests: %v", err)
	}
}

// 50,000 pipelined requests in one write (1.6 MB), and 20,000 in 432-byte
// writes, read concurrently: a client that runs ahead is slowed by TCP flow
// control (the server stops reading it), not reset. Before the read pause,
// worker mode reset the connection once 64 requests were in flight and
// 96 KiB were buffered.
func TestPipeliningClientThatRunsAhead(t *testing.T) {
	for _, tc := range []struct {
		name          string
		requests, per int // per: bytes per write, 0 for one write
	}{
		{"50000-in-one-write", 50000, 0},
		{"20000-in-432-byte-writes", 20000, 432},
	} {
		t.Run(tc.name, func(t *testing.T) {
			forBothModes(t, func(t *testing.T, inline bool) {
				app := seqApp(inline)
				addr := startApp(t, app)
				pipelineAll(t, addr, tc.requests, tc.per)
				t.Logf("%+v", app.Stats().Backpressure)
			})
		})
	}
}

// The same over TLS: the pause stops reading ciphertext, whatever part of
// it was already decrypted waits in the connection's plaintext buffer.
func TestPipeliningOverTLS(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		app := seqApp(inline)
		addr := startTLS(t, app, serverTLSConfig(t))
		c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: getPKI(t).pool, ServerName: "a.test"})
		if err != nil {
			t.Fatal(err)
		}
		pipelineOn(t, c, 50000, 0)
		t.Logf("%+v", app.Stats().Backpressure)
	})
}

// A pipelining client that reads large responses in spurts makes gnet's
// output fill and drain, and gnet re-arms reading each time it drains:
// each re-arm lets in at most one 64 KiB read before the engine pauses
// again, so the unparsed input held stays within one read per re-arm (plus
// a partial request), far under the cap, and every response arrives.
func TestPipeliningSpurtyReaderBigResponses(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		app := gwist.New(gwist.WithInline(inline))
		big := bytes.Repeat([]byte("b"), 16<<10)
		app.GET("/n/:i", func(c *gwist.Ctx) error { return c.Bytes(200, "text/plain", big) })
		addr := startApp(t, app)
		c := dialSmallWindow(t, addr)
		_ = c.SetDeadline(time.Now().Add(60 * time.Second))
		const n = 10000
		werr := make(chan error, 1)
		go func() { _, err := c.Write(seqRequests(n)); werr <- err }()
		br := bufio.NewReaderSize(c, 4<<10)
		for i := range n {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("response %d: %v", i, err)
			}
			m, err := io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || m != int64(len(big)) {
				t.Fatalf("response %d: %d, %d bytes, %v", i, resp.StatusCode, m, err)
			}
			if i%500 == 0 {
				time.Sleep(20 * time.Millisecond) // let the server's output pile up
			}
		}
		if err := <-werr; err != nil {
			t.Fatal(err)
		}
		st := app.Stats().Backpressure
		t.Logf("%+v", st)
		if ok, _ := engine.ReadPauseSupported(); ok && st.PeakInbound > int64(st.ReadRearms+1)*64<<10+16<<10 {
			t.Fatalf("held %d bytes of input with %d re-arms: more than one 64 KiB read each", st.PeakInbound, st.ReadRearms)
		}
	})
}

// dialSmallWindow dials with a 64 KiB receive buffer (set before connect,
// so the advertised window is small): what a client that stops reading
// leaves on the server is then the server's own buffers, not megabytes
// of client-side autotuning.
func dialSmallWindow(t *testing.T, addr string) *net.TCPConn {
	t.Helper()
	return testkit.Dial(t, addr, testkit.RecvBuffer(64<<10))
}

// waitConns polls until the App has no open connection, or fails after d.
func waitNoConns(t *testing.T, app *gwist.App, d time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	if !testkit.Eventually(d, func() bool { return app.Stats().Conns == 0 }) {
		t.Fatalf("%d connections still open after %v", app.Stats().Conns, d)
	}
	return time.Since(start)
}

// A client that writes a 50 MB pipelined flood and never reads is cut off
// by the write timeout once its responses stop moving; meanwhile the
// server stopped reading it, so the unparsed input it held stayed under
// the cap (on Linux: about one 64 KiB read, plus any reads gnet let in).
func TestPipelineFloodNeverRead(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		const writeTimeout = 300 * time.Millisecond
		app := seqApp(inline, gwist.WithWriteTimeout(writeTimeout), gwist.WithLogger(discardLogger()))
		addr := startApp(t, app)
		c := dialSmallWindow(t, addr)
		one := []byte("GET /n/1 HTTP/1.1\r\nHost: x\r\n\r\n")
		flood := bytes.Repeat(one, 50<<20/len(one))
		werr := make(chan error, 1)
		go func() {
			_, err := c.Write(flood)
			werr <- err
		}()
		// The flood's time to fill the buffers is the machine's; the
		// timeout itself adds WriteTimeout plus up to two 250 ms sweeps.
		waitNoConns(t, app, 20*time.Second)
		if err := <-werr; err == nil {
			t.Fatal("the whole 50 MB flood was accepted")
		}
		st := app.Stats().Backpressure
		t.Logf("%+v", st)
		if st.WriteTimeouts != 1 {
			t.Fatalf("want 1 write timeout, got %+v", st)
		}
		if st.PeakInbound > 1<<20 {
			t.Fatalf("held %d bytes of unparsed input, over the 1 MiB cap", st.PeakInbound)
		}
		if ok, _ := engine.ReadPauseSupported(); ok && st.PeakInbound > 256<<10 {
			t.Fatalf("held %d bytes of unparsed input: the read pause is not in effect", st.PeakInbound)
		}
	})
}

// A request pipelined over TLS while a large response holds parsing paused
// (more than MaxOutboundBytes in gnet's buffer) is answered once that
// drains. Its ciphertext is read in while the pause still stands and is
// not fed then; the parse that follows lifts the pause, and the
// ciphertext must be fed at once: before, it waited for the client's next
// bytes, which a client waiting for its response never sends (inline, 5
// of 5 connections hung).
func TestPipelinedOverTLSBehindLargeResponse(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		app, body := bigThenSmallApp(inline)
		tlsAddr := startTLS(t, app, serverTLSConfig(t))
		for i := range 5 {
			tc := dialSmallWindow(t, tlsAddr)
			c := tls.Client(tc, &tls.Config{RootCAs: getPKI(t).pool, ServerName: "a.test", NextProtos: []string{"http/1.1"}})
			_ = c.SetDeadline(time.Now().Add(5 * time.Second))
			r := &rawConn{t: t, c: c, br: bufio.NewReader(c)}
			r.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
			if _, err := r.br.Peek(1); err != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond) // the response fills the socket; parsing pauses
			r.send("GET /small HTTP/1.1\r\nHost: x\r\n\r\n")
			time.Sleep(20 * time.Millisecond)
			if resp, got := r.readResponse("GET"); resp.StatusCode != 200 || got != string(body) {
				t.Fatalf("connection %d, response 1: %d, %d bytes", i, resp.StatusCode, len(got))
			}
			if resp, got := r.readResponse("GET"); resp.StatusCode != 200 || got != "small" {
				t.Fatalf("connection %d, response 2: %d %q", i, resp.StatusCode, got)
			}
			c.Close()
		}
	})
}

// A request pipelined behind a response larger than MaxOutboundBytes
// waits, read but not parsed, until that response has left gnet's buffer;
// gnet does not say when it has, and a client waiting for its responses
// sends nothing that would wake the loop. The drain watch
// (engine/drainwatch.go) brings the loop back: the second response
// follows the first within milliseconds. Before, inline, it waited for the
// sweep: 220-246 ms in each of 8 tries (net/http: under 0.2 ms).
func TestPipelinedBehindLargeResponseNoStall(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		app, body := bigThenSmallApp(inline)
		addr := startApp(t, app)
		tlsAddr := startTLS(t, app, serverTLSConfig(t))
		for _, transport := range []string{"plaintext", "TLS"} {
			var gaps []time.Duration
			for range 5 {
				var c net.Conn = testkit.Dial(t, addr)
				if transport == "TLS" {
					c = tls.Client(testkit.Dial(t, tlsAddr), &tls.Config{RootCAs: getPKI(t).pool, ServerName: "a.test", NextProtos: []string{"http/1.1"}})
				}
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				r := &rawConn{t: t, c: c, br: bufio.NewReader(c)}
				r.send("GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /small HTTP/1.1\r\nHost: x\r\n\r\n")
				if resp, got := r.readResponse("GET"); resp.StatusCode != 200 || got != string(body) {
					t.Fatalf("%s, response 1: %d, %d bytes", transport, resp.StatusCode, len(got))
				}
				start := time.Now()
				if resp, got := r.readResponse("GET"); resp.StatusCode != 200 || got != "small" {
					t.Fatalf("%s, response 2: %d %q", transport, resp.StatusCode, got)
				}
				gaps = append(gaps, time.Since(start))
				c.Close()
			}
			slices.Sort(gaps)
			t.Logf("%s: between the responses %v", transport, gaps)
			if gaps[len(gaps)/2] > 100*time.Millisecond {
				t.Fatalf("%s: the second response came %v after the first (median of 5): it waited for the sweep", transport, gaps[len(gaps)/2])
			}
		}
	})
}

// bigThenSmallApp serves GET /big, an 8 MiB body (returned too), and GET
// /small, "small".
func bigThenSmallApp(inline bool) (*gwist.App, []byte) {
	body := make([]byte, 8<<20)
	patterned(body, 0)
	app := gwist.New(gwist.WithInline(inline))
	app.GET("/big", func(c *gwist.Ctx) error { return c.Bytes(200, "application/octet-stream", body) })
	app.GET("/small", func(c *gwist.Ctx) error { return c.String(200, "small") })
	return app, body
}
