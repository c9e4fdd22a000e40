package gwist_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
)

// WebSocket peers that do not read. A callback blocked writing to one
// (WriteMessage waits while WSConfig.MaxQueued waits for the peer) leaves
// the worker pool's bound, as a streamed response does, so that such peers
// cannot take the pool: with twice as many of them as workers, plain GET /
// is answered 200 throughout. The write timeout ends each of them: the
// blocked write fails, the callback returns, the connection is gone.
func TestWebSocketNonReadingPeersDoNotTakeThePool(t *testing.T) {
	const workers, peers = 4, 8
	app := gwist.New(gwist.WithLogger(discardLogger()), gwist.WithWorkers(workers), gwist.WithWriteTimeout(time.Second))
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	var mu sync.Mutex
	var writeErrs []error
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			for range 256 { // 16 MiB: more than the sockets hold
				if err := ws.WriteMessage(websocket.OpBinary, chunk); err != nil {
					mu.Lock()
					writeErrs = append(writeErrs, err)
					mu.Unlock()
					return
				}
			}
		},
	}))
	addr := startApp(t, app)
	for range peers {
		c := dialSmallWS(t, addr, "/ws")
		c.SendFrame(websocket.OpText, true, []byte("go"))
	}
	waitFor(t, 5*time.Second, "every peer's callback to block", func() bool { return app.Stats().Streams == peers })
	cl := newClient(t)
	for i := range 20 {
		resp, err := cl.Get("http://" + addr + "/")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET / #%d with %d callbacks blocked on %d workers: %d", i, peers, workers, resp.StatusCode)
		}
	}
	// The write timeout (1 s without progress) ends them.
	waitFor(t, 5*time.Second, "the blocked callbacks to return", func() bool {
		st := app.Stats()
		mu.Lock()
		defer mu.Unlock()
		return st.WebSockets == 0 && st.Streams == 0 && len(writeErrs) == peers
	})
	for _, err := range writeErrs {
		if !errors.Is(err, gwist.ErrWSClosed) {
			t.Fatalf("blocked write ended with %v, want ErrWSClosed", err)
		}
	}
}

// A WebSocket peer that sends and does not read is held back by TCP once
// more than MaxQueued of output waits for it, even when the application's
// callbacks never block (here they drop what does not fit): the server
// stops reading it, and the peer's writes block.
func TestWebSocketNonReadingPeerIsHeldBack(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()))
	dropped := 0
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			if ws.TryWriteMessage(op, data) != nil {
				dropped++
			}
		},
	}))
	addr := startApp(t, app)
	c := dialSmallWS(t, addr, "/ws")
	msg := websocket.AppendMaskedFrame(nil, websocket.OpBinary, true, bytes.Repeat([]byte("y"), 64<<10), [4]byte{1, 2, 3, 4})
	var sent int64
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); {
		_ = c.Conn.SetWriteDeadline(time.Now().Add(200 * time.Millisecond))
		n, err := c.Conn.Write(msg)
		sent += int64(n)
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatal(err)
		}
	}
	t.Logf("the client wrote %.1f MB in 3 s; the application dropped %d messages", float64(sent)/1e6, dropped)
	// The sockets' buffers on loopback hold some tens of MB; without the
	// pause the server reads gigabytes in 3 s.
	if sent > 128<<20 {
		t.Fatalf("the server took %d bytes from a peer that reads nothing", sent)
	}
}

var _ = http.StatusOK
