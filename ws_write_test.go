package gwist_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
)

// A peer that does not read: TryWriteMessage fails with ErrSlowClient once
// MaxQueued is waiting, WriteMessage blocks, and both end with ErrWSClosed
// when the connection goes; memory stays bounded meanwhile.
func TestWebSocketWriteBackpressure(t *testing.T) {
	type result struct {
		queued  int
		tryErr  error
		blocked bool
		unblock error
	}
	res := make(chan result, 1)
	saturated := make(chan struct{}, 1)
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnOpen: func(ws *gwist.WSConn) {
			go func() {
				var r result
				msg := bytes.Repeat([]byte("z"), 16<<10)
				// Until the socket and the cap are full: ErrSlowClient for
				// half a second in a row.
				fails := 0
				for r.queued < 64<<20 && fails < 10 {
					err := ws.TryWriteMessage(websocket.OpBinary, msg)
					switch {
					case errors.Is(err, gwist.ErrSlowClient):
						r.tryErr = err
						fails++
						time.Sleep(50 * time.Millisecond)
						continue
					case err != nil:
						r.tryErr = err
						fails = 10
						continue
					}
					fails = 0
					r.queued += len(msg)
				}
				done := make(chan error, 1)
				go func() { done <- ws.WriteMessage(websocket.OpBinary, msg) }()
				select {
				case err := <-done:
					r.unblock = err
				case <-time.After(300 * time.Millisecond):
					r.blocked = true
					saturated <- struct{}{}
					r.unblock = <-done
				}
				res <- r
			}()
		},
		Config: gwist.WSConfig{MaxQueued: 128 << 10},
	}))
	addr := startApp(t, app)
	c := dialWS(t, addr, "/ws")
	var r result
	select { // the peer reads nothing until the writer is blocked
	case <-saturated:
		c.Conn.Close()
		r = <-res
	case r = <-res:
	case <-time.After(20 * time.Second):
		t.Fatal("the writers were never held back")
	}
	if !errors.Is(r.tryErr, gwist.ErrSlowClient) {
		t.Fatalf("TryWriteMessage: %v after %d bytes, want ErrSlowClient", r.tryErr, r.queued)
	}
	// The cap, plus what the kernel's socket buffers took.
	if r.queued > 16<<20 {
		t.Errorf("%d bytes accepted for a peer that reads nothing", r.queued)
	}
	if !r.blocked || !errors.Is(r.unblock, gwist.ErrWSClosed) {
		t.Fatalf("WriteMessage: blocked %v, then %v; want blocked, then ErrWSClosed", r.blocked, r.unblock)
	}
	waitFor(t, 5*time.Second, "no WebSocket left", func() bool { return app.Stats().WebSockets == 0 })
}

// Misuse of the write side fails clearly instead of sending bad frames.
func TestWebSocketWriteMisuse(t *testing.T) {
	errs := make(chan [3]error, 1)
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnOpen: func(ws *gwist.WSConn) {
			errs <- [3]error{
				ws.WriteMessage(websocket.OpPing, nil), // control frames are the engine's
				ws.Close(1005, ""),                     // never sent on the wire
				ws.Close(1006, ""),
			}
		},
	}))
	c := dialWS(t, startApp(t, app), "/ws")
	for i, err := range <-errs {
		if err == nil {
			t.Errorf("misuse %d accepted", i)
		}
	}
	c.SendFrame(websocket.OpClose, true, websocket.ClosePayload(nil, 1000, ""))
	c.ExpectClose(1000)
}

// A peer that resets the connection while the server writes to it (a
// hub's shared frames, which the loop hands to the socket directly): the
// failed write closes the connection from inside the flush, and the loop
// goes on (OnClose runs, the count returns to 0, Shutdown completes).
func TestWebSocketResetWhileWriting(t *testing.T) {
	rec := &echoRecorder{}
	hub := gwist.NewWSHub()
	h := rec.handler(gwist.WSConfig{MaxQueued: 4 << 20})
	h.OnOpen = func(ws *gwist.WSConn) { hub.Add(ws) }
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(h))
	addr := startApp(t, app)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		msg := bytes.Repeat([]byte("r"), 32<<10)
		for {
			select {
			case <-stop:
				return
			default:
			}
			hub.Broadcast(websocket.OpBinary, msg)
			time.Sleep(200 * time.Microsecond)
		}
	}()
	const n = 20
	for range n {
		c := dialWS(t, addr, "/ws")
		buf := make([]byte, 64<<10)
		_, _ = io.ReadFull(c.BR, buf) // the broadcasts are flowing
		_ = c.Conn.(*net.TCPConn).SetLinger(0)
		c.Conn.Close() // RST
	}
	waitFor(t, 10*time.Second, "every OnClose", func() bool { return len(rec.closed()) == n })
	close(stop)
	<-done
	waitFor(t, 5*time.Second, "no WebSocket left", func() bool { return app.Stats().WebSockets == 0 })
}

// A callback's small messages, framed on its stack and written to the
// socket by the worker itself, go on in order when the socket fills: the
// part a write did not take is queued, the loop writes the rest, and no
// byte is lost or reordered across the change.
func TestWebSocketSmallWritesFillTheSocket(t *testing.T) {
	const n, size = 60000, 100 // 6 MB: more than loopback's socket buffers take
	wrote := make(chan error, 1)
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		// On a worker, which holds the socket while it runs a message's
		// callback (not OnOpen's: the 101 is still in the loop's output).
		OnMessage: func(ws *gwist.WSConn, _ gwist.Opcode, _ []byte) {
			msg := make([]byte, size)
			for i := range n {
				copy(msg, fmt.Sprintf("%08d", i))
				if err := ws.WriteMessage(websocket.OpBinary, msg); err != nil {
					wrote <- err
					return
				}
			}
			wrote <- nil
		},
	}))
	c := dialWS(t, startApp(t, app), "/ws")
	c.SendFrame(websocket.OpText, true, []byte("go"))
	// The peer reads once the socket is full: the worker's direct writes
	// stop (it waits for room) before all n went. A fixed sleep was too
	// short under -race on a loaded machine, where the worker wrote slower
	// than the client began to read.
	directWrites := func() uint64 { return app.Stats().Backpressure.WSDirectWrites }
	for last, deadline := uint64(0), time.Now().Add(10*time.Second); time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		got := directWrites()
		if got == last && got > 0 || got >= n {
			break
		}
		last = got
	}
	want := make([]byte, size)
	for i := range n {
		copy(want, fmt.Sprintf("%08d", i))
		c.ExpectMessage(websocket.OpBinary, string(want))
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	got := directWrites()
	t.Logf("%d of %d messages written by the worker itself", got, n)
	if got == 0 || got >= n {
		t.Fatalf("%d of %d messages written by the worker itself; want some, and the rest by the loop", got, n)
	}
}
