package gwist_test

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

// A client that sends its last request and shuts its write side at once
// (`nc -N`, an HTTP/1.0 one-shot) still gets the response, as from
// net/http, when its handler runs on a worker: gnet closes a connection as
// soon as it reads EOF, so a connection that parses no more requests does
// not read until its responses are out (engine/readpause.go). The handler
// takes 30 ms, so the FIN is there long before the response.
//
// A keep-alive request followed by a half-close still loses its response
// on workers (README, Known limits): the engine cannot know it was the
// last one without reading.
func TestHalfCloseAfterLastRequestGetsResponse(t *testing.T) {
	requests := map[string]string{
		"HTTP/1.0":          "GET /slow HTTP/1.0\r\n\r\n",
		"Connection: close": "GET /slow HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		// Bytes after the last request, sent while its handler runs (they
		// wait in the kernel meanwhile): the response still comes, then a
		// clean close, not a reset (RFC 9112, section 9.6).
		"bytes after it": "GET /slow HTTP/1.0\r\n\r\n" + afterPause + strings.Repeat("x", 1000),
	}
	for _, mode := range []struct {
		name string
		opts []gwist.Option
	}{{"workers", nil}, {"inline", []gwist.Option{gwist.WithInline(true)}}} {
		t.Run(mode.name, func(t *testing.T) {
			app := gwist.New(mode.opts...)
			app.GET("/slow", func(c *gwist.Ctx) error {
				time.Sleep(30 * time.Millisecond)
				return c.String(200, "still here")
			})
			addr := startApp(t, app)
			tlsAddr := startTLS(t, app, serverTLSConfig(t))
			for name, req := range requests {
				t.Run(name, func(t *testing.T) {
					for i := 0; i < 5; i++ {
						tc := testkit.Dial(t, addr)
						halfCloseAndRead(t, tc, tc, req)
					}
					closedPromptly(t, app)
				})
				t.Run(name+" over TLS", func(t *testing.T) {
					for i := 0; i < 5; i++ {
						tc := testkit.Dial(t, tlsAddr)
						cc := tls.Client(tc, &tls.Config{RootCAs: getPKI(t).pool, ServerName: "a.test"})
						// A first exchange: the handshake is over on both
						// sides (README, Known limits: a half-close in the
						// client's first flight after its Finished can
						// still beat the server's handshake).
						readResponse(t, cc, "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
						halfCloseAndRead(t, cc, tc, req)
					}
					closedPromptly(t, app)
				})
			}
		})
	}
}

// afterPause in a request makes halfCloseAndRead pause 10 ms there.
const afterPause = "\x00pause\x00"

// halfCloseAndRead writes req on c, shuts the write side of the TCP
// connection under it (a FIN, without TLS's close_notify) and expects the
// whole response, then the server's close.
func halfCloseAndRead(t *testing.T, c net.Conn, tc *net.TCPConn, req string) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	for i, part := range strings.Split(req, afterPause) {
		if i > 0 {
			time.Sleep(10 * time.Millisecond)
		}
		if _, err := io.WriteString(c, part); err != nil {
			t.Fatal(err)
		}
	}
	if err := tc.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the response, and a reset if one comes, arrive unread
	br := readResponseFrom(t, bufio.NewReader(c), "after the half-close")
	if rest, err := io.ReadAll(br); len(rest) > 0 || err != nil {
		t.Fatalf("after the response: %q, %v; want a clean close", rest, err)
	}
	c.Close()
}

// closedPromptly: the server read the clients' EOF in its linger and
// closed, well before the linger's 500 ms bound.
func closedPromptly(t *testing.T, app *gwist.App) {
	t.Helper()
	waitFor(t, 250*time.Millisecond, "the server to close the connections", func() bool { return app.Stats().Conns == 0 })
}

// readResponse sends a keep-alive req on c and reads its response.
func readResponse(t *testing.T, c net.Conn, req string) {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	// One byte at a time: nothing of the next response is read ahead.
	readResponseFrom(t, bufio.NewReaderSize(oneByteReader{c}, 16), "to the first request")
}

// readResponseFrom reads one response to a GET of /slow from br and
// returns br.
func readResponseFrom(t *testing.T, br *bufio.Reader, what string) *bufio.Reader {
	t.Helper()
	resp, err := http.ReadResponse(br, &http.Request{Method: "GET"})
	if err != nil {
		t.Fatalf("no response %s: %v", what, err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || string(body) != "still here" {
		t.Fatalf("%d %q %v", resp.StatusCode, body, err)
	}
	return br
}

type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) { return o.r.Read(p[:1]) }
