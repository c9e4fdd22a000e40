//go:build linux && !poll_opt

package engine

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/tlsstate"
)

// With worker writes off, a streamed response goes out through the loop
// (outbound_loop.go), and a client's half-close in the middle of it still
// gets all of it: the half-close makes the request's context done without
// ending the exchange (exchangeClientShut), on this path as on the worker's
// own writes (the root package's TestHalfCloseWhileResponseIsWritten).
func TestHalfCloseStreamThroughLoop(t *testing.T) {
	withReachOff(t, &fdWriteReach)
	body := bytes.Repeat([]byte("0123456789abcdef"), 512<<10) // 8 MiB
	_, addr := startOnWorkers(t, Config{}, func(ex *Exchange) {
		ex.Status = 200
		for off := 0; off < len(body); off += 128 << 10 {
			if _, err := ex.Write(body[off : off+128<<10]); err != nil {
				return
			}
			if err := ex.Flush(); err != nil {
				return
			}
		}
	})
	tc := testkit.Dial(t, addr, testkit.RecvBuffer(64<<10))
	defer tc.Close()
	_ = tc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(tc, "GET /stream HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(tc)
	if _, err := br.Peek(1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	if err := tc.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("%d of %d bytes (%v)", len(got), len(body), err)
	}
	if rest, err := io.ReadAll(br); len(rest) > 0 || err != nil {
		t.Fatalf("after the response: %d bytes, %v; want a clean close", len(rest), err)
	}
}

// With the read pause off (readpause.go's fallback) a connection is not
// carried past its client's FIN: the duplicate socket would read the FIN
// again at every turn of the loop and be moved again, tens of thousands of
// times a second for as long as the handler runs. It closes at the FIN,
// as without the raw accept (the response is lost, as net/http's would not
// be: a stated limit of the fallback), promptly and once.
func TestHalfCloseNotCarriedWithoutReadPause(t *testing.T) {
	withReachOff(t, &readPauseReach)
	s, addr := startOnWorkers(t, Config{}, func(ex *Exchange) {
		time.Sleep(200 * time.Millisecond)
		ex.Status = 200
	})
	tc := testkit.Dial(t, addr)
	defer tc.Close()
	_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(tc, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond) // the request is with its handler
	if err := tc.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, _ = io.ReadAll(tc)
	if n := s.pipe.peerHalfCloses.Load(); n != 0 {
		t.Fatalf("carried past the FIN %d times without the read pause", n)
	}
	if d := time.Since(start); d > 150*time.Millisecond {
		t.Fatalf("closed %v after the FIN; want at once", d)
	}
}

// A client pipelines past Config.MaxPipelined and half-closes; the loop
// writes the large responses (worker writes off), so gnet holds output,
// and its re-arm of reading as that output drains lets the FIN in while
// requests still wait behind the cap in gnet's buffer. They are copied out
// of the closing gnet connection (carriedInput) and answered, every one,
// in order, then the connection closes cleanly; over plaintext and TLS.
// Before, the 4 past the cap were dropped over plaintext (16 of 20
// answered), and over TLS the stream after the 16th waited for its write
// side until the client gave up (tryGrant's stale wpending).
func TestHalfCloseParkedRequestsAnswered(t *testing.T) {
	withReachOff(t, &fdWriteReach)
	ca := testkit.NewCA("gwist test CA")
	ts, err := tlsstate.NewServer(tlsstate.Config{TLS: testkit.ServerConfig(ca.Server("a.test", "a.test"))})
	if err != nil {
		t.Fatal(err)
	}
	big := bytes.Repeat([]byte("x"), 256<<10)
	for _, useTLS := range []bool{false, true} {
		cfg := Config{MaxPipelined: 4}
		if useTLS {
			cfg.TLS = ts
		}
		_, addr := startOnWorkers(t, cfg, func(ex *Exchange) {
			ex.Status = 200
			_, _ = ex.Write([]byte(ex.Request.Path + "\n"))
			_, _ = ex.Write(big)
		})
		for round := range 3 {
			var tlsCfg *tls.Config
			if useTLS {
				tlsCfg = ca.ClientConfig("a.test", "http/1.1")
			}
			pipelineHalfCloseReadSlowly(t, addr, tlsCfg, round, big)
		}
	}
}

// pipelineHalfCloseReadSlowly sends 20 pipelined requests in one write
// (over TLS with tlsCfg), shuts the write side of the TCP connection (a
// FIN, no close_notify), and reads the 20 responses slowly through a small
// receive buffer, expecting each in order and then a clean close.
func pipelineHalfCloseReadSlowly(t *testing.T, addr string, tlsCfg *tls.Config, round int, big []byte) {
	t.Helper()
	const n = 20
	tc := testkit.Dial(t, addr, testkit.RecvBuffer(32<<10))
	defer tc.Close()
	_ = tc.SetDeadline(time.Now().Add(10 * time.Second))
	var conn io.ReadWriter = tc
	if tlsCfg != nil {
		cc := tls.Client(tc, tlsCfg)
		if err := cc.Handshake(); err != nil {
			t.Fatal(err)
		}
		conn = cc
	}
	var req bytes.Buffer
	for i := range n {
		fmt.Fprintf(&req, "GET /r%d HTTP/1.1\r\nHost: x\r\n\r\n", i)
	}
	if _, err := conn.Write(req.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := tc.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReaderSize(conn, 4096)
	for i := range n {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("TLS %v, round %d, response %d of %d: %v", tlsCfg != nil, round, i, n, err)
		}
		var body bytes.Buffer
		for buf := make([]byte, 8192); ; {
			time.Sleep(50 * time.Microsecond) // slower than the server writes
			k, err := resp.Body.Read(buf)
			body.Write(buf[:k])
			if err != nil {
				break
			}
		}
		if want := fmt.Sprintf("/r%d\n%s", i, big); resp.StatusCode != 200 || body.String() != want {
			t.Fatalf("TLS %v, round %d, response %d: %d, %d bytes starting %q", tlsCfg != nil, round, i, resp.StatusCode, body.Len(), body.Bytes()[:min(8, body.Len())])
		}
	}
	if rest, err := io.ReadAll(br); len(rest) > 0 || err != nil {
		t.Fatalf("TLS %v, round %d, after the responses: %d bytes, %v; want a clean close", tlsCfg != nil, round, len(rest), err)
	}
}

// startOnWorkers starts a server with cfg on a pool of four workers; both
// end with the test.
func startOnWorkers(t *testing.T, cfg Config, h Handler) (*Server, string) {
	t.Helper()
	w, err := NewWorkers(4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Release(time.Second) })
	cfg.Workers = w
	s, addr := startOnGroup(t, NewLoopGroup(), "127.0.0.1:0", cfg, h)
	t.Cleanup(func() { _ = shutdown(t, s, 5*time.Second) })
	return s, addr
}
