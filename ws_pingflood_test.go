package gwist_test

import (
	"bytes"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/wstest"
	"github.com/gwist/gwist/websocket"
)

// echoWSApp serves GET /ws: a WebSocket that writes every message back,
// as examples/hello's does.
func echoWSApp(opts ...gwist.Option) *gwist.App {
	app := gwist.New(append([]gwist.Option{gwist.WithLogger(discardLogger())}, opts...)...)
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) { _ = ws.WriteMessage(op, data) },
	}))
	return app
}

// dialSmallWS opens a WebSocket to addr+path from a socket with a small
// receive buffer (dialSmallWindow), so that a client that does not read
// stops taking the server's output after 64 KiB.
func dialSmallWS(t *testing.T, addr, path string) *wstest.Client {
	t.Helper()
	conn := dialSmallWindow(t, addr)
	c, resp := wstest.Handshake(t, conn, addr, path)
	if resp.StatusCode != 101 {
		t.Fatalf("handshake: %d", resp.StatusCode)
	}
	_ = conn.SetDeadline(time.Time{})
	return c
}

// floodPings writes pings to c as fast as it takes them for up to d. It
// returns the bytes written and the error that ended it (nil when d ran
// out).
func floodPings(c *wstest.Client, d time.Duration) (int64, error) {
	ping := websocket.AppendMaskedFrame(nil, websocket.OpPing, true, []byte("0123456789"), wstest.Mask)
	return writeRepeatedly(c.Conn, bytes.Repeat(ping, 4096), d)
}

// writeRepeatedly writes unit to conn over and over for d, each write
// allowed a second before it counts as blocked; a write cut short by its
// deadline is resumed where it stopped, so the frames stay whole. It
// returns the bytes written and the error that ended it (nil when d ran
// out).
func writeRepeatedly(conn net.Conn, unit []byte, d time.Duration) (int64, error) {
	var sent int64
	off := 0
	for end := time.Now().Add(d); time.Now().Before(end); {
		_ = conn.SetWriteDeadline(time.Now().Add(min(time.Second, time.Until(end))))
		n, err := conn.Write(unit[off:])
		sent += int64(n)
		off = (off + n) % len(unit)
		if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			return sent, err
		}
	}
	return sent, nil
}

// A client that sends pings as fast as it can and never reads the pongs
// is closed (1008) within seconds, counted, and holds nothing after: the
// pongs go through the connection's capped output, reading stops once a
// pong no longer fits, and a peer that then reads nothing for 2 s is
// dropped. (Without the drop it sits until the write timeout, 30 s;
// without the pause, its pongs grew the server's memory by GBs in seconds.)
func TestWebSocketPingFloodIsClosed(t *testing.T) {
	app := echoWSApp()
	addr := startApp(t, app)
	c := dialSmallWS(t, addr, "/ws")
	start := time.Now()
	sent, err := floodPings(c, 20*time.Second)
	if err == nil {
		t.Fatalf("still connected after 20 s of pings (%d bytes sent)", sent)
	}
	t.Logf("closed after %v and %.1f MB of pings: %v", time.Since(start).Round(time.Millisecond), float64(sent)/1e6, err)
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("closed only after %v", d)
	}
	waitFor(t, 5*time.Second, "the WebSocket to be gone", func() bool {
		st := app.Stats()
		return st.WebSockets == 0 && st.Backpressure.PingFloods == 1
	})
}

// A client that floods pings and reads the pongs, slower than it pings,
// is held to the pace of its reading: once the output has no room for a
// pong, the server stops reading it until the pong goes out, so what the
// client manages to send is bounded by the sockets' buffers and its own
// reading, not by the server's memory. It reads, so it is not dropped.
func TestWebSocketPingFloodSlowReaderIsHeldBack(t *testing.T) {
	app := echoWSApp()
	addr := startApp(t, app)
	c := dialSmallWS(t, addr, "/ws")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { // reads about 200 KB/s
		defer close(done)
		buf := make([]byte, 2048)
		for tick := time.NewTicker(10 * time.Millisecond); ; {
			select {
			case <-stop:
				tick.Stop()
				return
			case <-tick.C:
			}
			_ = c.Conn.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
			_, _ = c.BR.Read(buf)
		}
	}()
	sent, err := floodPings(c, 3*time.Second)
	close(stop)
	<-done
	if err != nil {
		t.Fatalf("a client that reads was dropped: %v", err)
	}
	t.Logf("sent %.1f MB of pings in 3 s", float64(sent)/1e6)
	// The sockets' buffers hold some MB on loopback; without the pause the
	// server took everything the client wrote (gigabytes in 3 s).
	if sent > 64<<20 {
		t.Fatalf("the server took %d bytes of pings from a client that reads its pongs at 200 KB/s", sent)
	}
	if n := app.Stats().Backpressure.PingFloods; n != 0 {
		t.Fatalf("a reading client counted as a flood (%d)", n)
	}
}

// A client that pings a few times while it does not read a large message
// is not a flood: the pong owed to its last ping waits for room in the
// output and goes out once the client reads; it stays connected. (Here the
// pings follow the request for 8 MiB at once; that they come while the
// server's output is backed up is certain in
// engine.TestWebSocketPingWhileBehind, on the engine's harness.)
func TestWebSocketPingWhileBehindIsAnsweredLater(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()))
	big := bytes.Repeat([]byte("x"), 8<<20) // more than the sockets hold
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			if ws.WriteMessage(websocket.OpBinary, big) == nil {
				_ = ws.WriteText("end")
			}
		},
	}))
	addr := startApp(t, app)
	c := dialSmallWS(t, addr, "/ws")
	c.SendFrame(websocket.OpText, true, []byte("go"))
	for i := range 5 {
		c.SendFrame(websocket.OpPing, true, []byte{byte('0' + i)})
	}
	var pong []byte
	pongs := 0
	for got := 0; ; {
		ev, err := c.Next()
		if err != nil {
			t.Fatal(err)
		}
		if ev.Kind == websocket.EventPong {
			pong = append([]byte(nil), ev.Payload...)
			pongs++
		}
		if ev.Kind == websocket.EventMessage {
			got++
			if string(ev.Payload) == "end" {
				break
			}
		}
	}
	// The pings came while megabytes waited for the client: their pongs
	// went out once it read (the first owed one answering only the last
	// ping read with it, RFC 6455 section 5.5.3), the last one last.
	if pongs == 0 || pongs > 5 || string(pong) != "4" {
		t.Fatalf("%d pongs, the last %q; want 1 to 5, the last answering the last ping (%q)", pongs, pong, "4")
	}
	if n := app.Stats().Backpressure.PingFloods; n != 0 {
		t.Fatalf("counted as a flood (%d)", n)
	}
}
