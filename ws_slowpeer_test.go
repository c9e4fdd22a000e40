package gwist_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/wstest"
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
	var dropped atomic.Int64 // counted on a worker, read here
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			if ws.TryWriteMessage(op, data) != nil {
				dropped.Add(1)
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
	t.Logf("the client wrote %.1f MB in 3 s; the application dropped %d messages", float64(sent)/1e6, dropped.Load())
	// The sockets' buffers on loopback hold some tens of MB; without the
	// pause the server reads gigabytes in 3 s.
	if sent > 128<<20 {
		t.Fatalf("the server took %d bytes from a peer that reads nothing", sent)
	}
}

// What a WebSocket peer that sends and never reads costs the server, the
// issue-21 attack in small: each of 10 peers sends 64 KiB messages to the
// echo route until its writes block (the sockets' buffers and then the
// server's caps are full), and the Go heap the server holds for them is
// measured. The README states the bound: about 0.8 MiB per connection
// with the defaults (read queue, frame reader, a blocked callback's
// message, the output cap, gnet's input). When they leave it is given
// back.
func TestWebSocketNonReadingPeerMemory(t *testing.T) {
	const peers = 10
	app := echoWSApp()
	addr := startApp(t, app)
	before := heapInUse()
	msg := websocket.AppendMaskedFrame(nil, websocket.OpBinary, true, bytes.Repeat([]byte("z"), 64<<10), [4]byte{9, 8, 7, 6})
	var wg sync.WaitGroup
	var total atomicInt64
	var clients []*wstest.Client
	for range peers {
		c := dialSmallWS(t, addr, "/ws")
		clients = append(clients, c)
		wg.Go(func() {
			for { // until a write is blocked for half a second
				_ = c.Conn.SetWriteDeadline(time.Now().Add(500 * time.Millisecond))
				n, err := c.Conn.Write(msg)
				total.add(int64(n))
				if err != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	held := heapInUse() - before
	t.Logf("%d peers wrote %.1f MB before blocking; the server's heap grew by %d KiB per peer",
		peers, float64(total.load())/1e6, held/peers>>10)
	if per := held / peers; per > 1<<20 {
		t.Fatalf("%d bytes of heap per non-reading peer, want under 1 MiB", per)
	}
	for _, c := range clients {
		c.Conn.Close()
	}
	waitFor(t, 5*time.Second, "the WebSockets to be gone", func() bool { return app.Stats().WebSockets == 0 })
	heapInUse() // pooled buffers go at the second collection
	if after := heapInUse() - before; after > held/4 {
		t.Fatalf("after the peers left the heap is still %d KiB above where it started (%d KiB at the peak)", after>>10, held>>10)
	}
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

type atomicInt64 struct {
	mu sync.Mutex
	n  int64
}

func (a *atomicInt64) add(n int64) { a.mu.Lock(); a.n += n; a.mu.Unlock() }
func (a *atomicInt64) load() int64 { a.mu.Lock(); defer a.mu.Unlock(); return a.n }
