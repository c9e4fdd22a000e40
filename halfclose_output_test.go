package gwist_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

// A client that shuts its write side while its response is still being
// written (it reads a little, half-closes, then reads the rest) gets all
// of it, as from net/http: whole responses that gnet holds in its buffer
// (the read pause keeps the FIN unread until that drains:
// engine/readpause.go), and streamed ones, which go on past the FIN
// (engine/exchange.go, exchangeClientShut). The client's small receive
// buffer keeps most of the 8 MiB body on the server when the FIN comes.
func TestHalfCloseWhileResponseIsWritten(t *testing.T) {
	body := make([]byte, 8<<20)
	patterned(body, 0)
	requests := []struct {
		name, req string
		n         int  // responses
		finAtOnce bool // the FIN right behind the requests
	}{
		{"keep-alive", "GET /big HTTP/1.1\r\nHost: x\r\n\r\n", 1, false},
		{"Connection: close", "GET /big HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 1, false},
		{"pipelined, the last one closing", "GET /big HTTP/1.1\r\nHost: x\r\n\r\nGET /big HTTP/1.0\r\n\r\n", 2, false},
		{"streamed", "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n", 1, false},
		{"streamed, Connection: close", "GET /stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 1, false},
		// The FIN is read while both handlers run, and the connection is
		// carried; then the first response leaves gnet's buffer while the
		// second is still with its handler, and gnet turns reading on
		// again: the FIN is read once more, on the duplicate.
		{"pipelined, the FIN at once", "GET /slowbig HTTP/1.1\r\nHost: x\r\n\r\nGET /slowbig HTTP/1.1\r\nHost: x\r\n\r\n", 2, true},
		{"streamed, the FIN at once", "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n", 1, true},
		// Two batches: the first response leaves gnet's buffer while the
		// second is with its handler, and the FIN is read once more.
		{"two batches, the FIN at once", "GET /slowbig HTTP/1.1\r\nHost: x\r\n\r\n" + afterPause +
			"GET /slowbig?ms=600 HTTP/1.1\r\nHost: x\r\n\r\n", 2, true},
	}
	forBothModes(t, func(t *testing.T, inline bool) {
		app := gwist.New(gwist.WithInline(inline))
		app.GET("/big", func(c *gwist.Ctx) error { return c.Bytes(200, "application/octet-stream", body) })
		app.GET("/stream", func(c *gwist.Ctx) error { return streamInParts(c, body) })
		app.GET("/slowbig", func(c *gwist.Ctx) error {
			ms, _ := strconv.Atoi(c.Query("ms"))
			time.Sleep(time.Duration(max(ms, 300)) * time.Millisecond)
			return c.Bytes(200, "application/octet-stream", body)
		})
		addr := startApp(t, app)
		tlsAddr := startTLS(t, app, serverTLSConfig(t))
		for _, rq := range requests {
			t.Run(rq.name, func(t *testing.T) {
				tc := testkit.Dial(t, addr, testkit.RecvBuffer(64<<10))
				readAcrossHalfClose(t, tc, tc, rq.req, rq.n, body, rq.finAtOnce)
			})
			t.Run(rq.name+" over TLS", func(t *testing.T) {
				tc := testkit.Dial(t, tlsAddr, testkit.RecvBuffer(64<<10))
				cc := tls.Client(tc, &tls.Config{RootCAs: getPKI(t).pool, ServerName: "a.test", NextProtos: []string{"http/1.1"}})
				readAcrossHalfClose(t, cc, tc, rq.req, rq.n, body, rq.finAtOnce)
			})
		}
		closedPromptly(t, app)
	})
}

// The same for files (sendfile on workers; inline, the file read whole),
// through Static and Ctx.File.
func TestHalfCloseWhileFileIsSent(t *testing.T) {
	body := make([]byte, 8<<20)
	patterned(body, 0)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), body, 0o644); err != nil {
		t.Fatal(err)
	}
	requests := []struct {
		name, req string
		n         int
	}{
		{"Static, keep-alive", "GET /s/big.bin HTTP/1.1\r\nHost: x\r\n\r\n", 1},
		{"Static, Connection: close", "GET /s/big.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 1},
		{"Static, pipelined", "GET /s/big.bin HTTP/1.1\r\nHost: x\r\n\r\nGET /s/big.bin HTTP/1.0\r\n\r\n", 2},
		{"Ctx.File", "GET /f HTTP/1.1\r\nHost: x\r\n\r\n", 1},
	}
	forBothModes(t, func(t *testing.T, inline bool) {
		// (The file limit is WithInline's; it does not apply on workers.)
		app := gwist.New(gwist.WithInline(inline), gwist.WithMaxInlineFileBytes(16<<20))
		app.Static("/s", dir)
		app.GET("/f", func(c *gwist.Ctx) error { return c.File(filepath.Join(dir, "big.bin")) })
		addr := startApp(t, app)
		tlsAddr := startTLS(t, app, serverTLSConfig(t))
		for _, rq := range requests {
			t.Run(rq.name, func(t *testing.T) {
				tc := testkit.Dial(t, addr, testkit.RecvBuffer(64<<10))
				readAcrossHalfClose(t, tc, tc, rq.req, rq.n, body, false)
			})
			t.Run(rq.name+" over TLS", func(t *testing.T) {
				tc := testkit.Dial(t, tlsAddr, testkit.RecvBuffer(64<<10))
				cc := tls.Client(tc, &tls.Config{RootCAs: getPKI(t).pool, ServerName: "a.test", NextProtos: []string{"http/1.1"}})
				readAcrossHalfClose(t, cc, tc, rq.req, rq.n, body, false)
			})
		}
		closedPromptly(t, app)
	})
}

// A client that half-closes during a streamed response and then leaves
// (its socket closed with the response unread: a reset) ends the stream:
// the handler's next write fails, and the connection is gone at once.
func TestHalfCloseThenLeaveEndsStream(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		app := gwist.New(gwist.WithInline(inline))
		ended := make(chan error, 1)
		app.GET("/endless", func(c *gwist.Ctx) error {
			part := bytes.Repeat([]byte("y"), 64<<10)
			for {
				if _, err := c.Writer().Write(part); err != nil {
					ended <- err
					return err
				}
				if inline {
					return nil // inline, a write never waits: one part
				}
			}
		})
		addr := startApp(t, app)
		tc := testkit.Dial(t, addr, testkit.RecvBuffer(64<<10))
		_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.WriteString(tc, "GET /endless HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := bufio.NewReader(tc).Peek(1); err != nil {
			t.Fatal(err)
		}
		if err := tc.CloseWrite(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
		tc.Close() // data unread: a reset
		if !inline {
			select {
			case err := <-ended:
				if !errors.Is(err, gwist.ErrClientGone) {
					t.Fatalf("the stream ended with %v, want ErrClientGone", err)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("the stream to a client that left goes on")
			}
		}
		closedPromptly(t, app)
	})
}

// readAcrossHalfClose sends req on c (pausing at afterPause), waits for the response's first
// bytes (unless finAtOnce), shuts the write side of the TCP connection tc
// under c (a FIN, without TLS's close_notify) and expects n whole
// responses with body, then the server's clean close.
func readAcrossHalfClose(t *testing.T, c net.Conn, tc *net.TCPConn, req string, n int, body []byte, finAtOnce bool) {
	t.Helper()
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	for i, part := range strings.Split(req, afterPause) {
		if i > 0 {
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := io.WriteString(c, part); err != nil {
			t.Fatal(err)
		}
	}
	br := bufio.NewReader(c)
	if !finAtOnce {
		if _, err := br.Peek(1); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Millisecond) // the server fills what the socket takes
	}
	if err := tc.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond) // the FIN arrives with output held, or handlers running
	for i := range n {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i+1, err)
		}
		got, err := io.ReadAll(resp.Body)
		if err != nil || !bytes.Equal(got, body) {
			t.Fatalf("response %d: %d of %d bytes, equal %v, %v", i+1, len(got), len(body), bytes.Equal(got, body[:min(len(got), len(body))]), err)
		}
	}
	if rest, err := io.ReadAll(br); len(rest) > 0 || err != nil {
		t.Fatalf("after the responses: %d bytes, %v; want a clean close", len(rest), err)
	}
}

// streamInParts writes body through the response writer in 64 parts.
func streamInParts(c *gwist.Ctx, body []byte) error {
	w := c.Writer()
	part := len(body) / 64
	for off := 0; off < len(body); off += part {
		if _, err := w.Write(body[off:min(off+part, len(body))]); err != nil {
			return err
		}
	}
	return nil
}
