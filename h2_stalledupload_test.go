package gwist_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	xh2 "golang.org/x/net/http2"

	"github.com/gwist/gwist"
)

// HTTP/2 uploads that stall. A connection's handlers hold at most their
// share of the worker pool (WithMaxConnHandlers; a sixteenth of it, at
// least 4), so a few connections whose streamed uploads stop cannot take
// the pool: a live client on another connection is answered 200
// throughout. The body read timeout then answers each stalled stream 408
// and resets it (NO_ERROR), and the workers are free again.
func TestHTTP2StalledUploadsDoNotTakeThePool(t *testing.T) {
	const workers, conns, streams, share = 32, 4, 8, 4
	app := h2App(gwist.WithWorkers(workers), gwist.WithBodyReadTimeout(time.Second))
	app.StreamBody(0).POST("/upload", func(c *gwist.Ctx) error {
		n, err := io.Copy(io.Discard, c.BodyReader())
		if err != nil {
			return err
		}
		return c.String(200, fmt.Sprint(n))
	})
	addr := startApp(t, app)
	var attackers []*h2Raw
	for range conns {
		a := dialH2Raw(t, addr, true)
		for s := range streams {
			a.postPartial(uint32(2*s+1), "/upload", 1<<20, bytes.Repeat([]byte("u"), 1024))
		}
		attackers = append(attackers, a)
	}
	waitFor(t, 5*time.Second, "each connection's share of handlers to be held", func() bool {
		st := app.Stats()
		return st.Handlers == conns*share && st.Backpressure.ShareWaits == conns*(streams-share)
	})
	expectLive(t, h2cClient(t), "http://"+addr+"/", 20)
	for _, a := range attackers {
		a.wait(10*time.Second, "every stalled stream to be answered 408 and reset", func() bool {
			for s := range streams {
				id := uint32(2*s + 1)
				if code, ok := a.rst[id]; a.status[id] != "408" || !ok || code != xh2.ErrCodeNo {
					return false
				}
			}
			return true
		})
	}
	waitFor(t, 2*time.Second, "the workers to be free", func() bool {
		st := app.Stats()
		return st.Handlers == 0 && st.Backpressure.BodyReadTimeouts == conns*streams
	})
}

// A buffered request body (a route that does not stream it) that stalls
// over HTTP/2 is answered 408 after the body read timeout and its stream is
// reset; the connection goes on.
func TestHTTP2BufferedBodyTimeout(t *testing.T) {
	app := h2App(gwist.WithBodyReadTimeout(500 * time.Millisecond))
	addr := startApp(t, app)
	a := dialH2Raw(t, addr, true)
	start := time.Now()
	a.postPartial(1, "/sum", 1000, []byte("0123456789"))
	a.wait(5*time.Second, "408 and RST_STREAM", func() bool {
		code, ok := a.rst[1]
		return a.status[1] == "408" && ok && code == xh2.ErrCodeNo
	})
	if d := time.Since(start); d < 500*time.Millisecond {
		t.Fatalf("answered after %v, before the timeout", d)
	}
	a.postPartial(3, "/sum", 3, []byte("abc"))
	a.write(func() error { return a.fr.WriteData(3, true, nil) })
	a.wait(5*time.Second, "the next request's answer", func() bool { return a.status[3] == "200" })
	if n := app.Stats().Backpressure.BodyReadTimeouts; n != 1 {
		t.Fatalf("BodyReadTimeouts = %d", n)
	}
}

// A client that never acknowledges the server's SETTINGS is sent GOAWAY
// SETTINGS_TIMEOUT and closed after 5 s, not left to the idle timeout.
func TestHTTP2SettingsNotAcknowledged(t *testing.T) {
	app := h2App()
	addr := startApp(t, app)
	a := dialH2Raw(t, addr, false)
	start := time.Now()
	a.wait(10*time.Second, "GOAWAY and the close", func() bool { return a.goAway != nil && a.closed })
	if *a.goAway != xh2.ErrCodeSettingsTimeout {
		t.Fatalf("GOAWAY %v", *a.goAway)
	}
	if d := time.Since(start); d < 4*time.Second || d > 7*time.Second {
		t.Fatalf("closed after %v, want about 5 s", d)
	}
}
