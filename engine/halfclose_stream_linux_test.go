//go:build linux && !poll_opt

package engine

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/testkit"
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
