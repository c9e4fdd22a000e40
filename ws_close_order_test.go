package gwist_test

import (
	"net"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
)

// A message that arrives together with the peer's close frame is answered
// before the close reply, on workers as inline and as gorilla/websocket
// does: the close reply waits for the callbacks queued before it
// (wsCloseReceived). A frame after the close frame is not delivered. With
// a half-close behind the close frame the answer still arrives (the read
// pause keeps the FIN from closing the connection first). The echo takes
// 30 ms, so the FIN is there long before it.
func TestWebSocketMessageBeforeCloseIsAnswered(t *testing.T) {
	for _, inline := range []bool{false, true} {
		for _, half := range []bool{false, true} {
			name := map[bool]string{false: "workers", true: "inline"}[inline] + map[bool]string{false: "", true: "/half-close"}[half]
			t.Run(name, func(t *testing.T) {
				rec := &echoRecorder{}
				h := rec.handler(gwist.WSConfig{})
				echo := h.OnMessage
				h.OnMessage = func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
					time.Sleep(30 * time.Millisecond)
					echo(ws, op, data)
				}
				app := gwist.New(gwist.WithInline(inline), gwist.WithLogger(discardLogger()))
				app.GET("/ws", gwist.WebSocket(h))
				c := dialWS(t, startApp(t, app), "/ws")
				b := websocket.AppendMaskedFrame(nil, websocket.OpText, true, []byte("last"), testMask)
				b = websocket.AppendMaskedFrame(b, websocket.OpClose, true, websocket.ClosePayload(nil, 1000, "bye"), testMask)
				b = websocket.AppendMaskedFrame(b, websocket.OpText, true, []byte("after the close"), testMask)
				c.SendRaw(b)
				if half {
					if err := c.Conn.(*net.TCPConn).CloseWrite(); err != nil {
						t.Fatal(err)
					}
				}
				c.ExpectMessage(websocket.OpText, "last")
				c.ExpectClose(1000)
				waitFor(t, 5*time.Second, "OnClose", func() bool { return len(rec.closed()) == 1 })
				if got := rec.closed()[0]; got != 1000 {
					t.Errorf("OnClose code %d, want 1000", got)
				}
			})
		}
	}
}

// The same over HTTP/2 (RFC 8441), the close frame's DATA ending the
// client's side of the stream.
func TestWebSocketHTTP2MessageBeforeCloseIsAnswered(t *testing.T) {
	rec := &echoRecorder{}
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(rec.handler(gwist.WSConfig{})))
	addr := startApp(t, app)
	c := dialH2WS(t, addr, false, "/ws")
	c.send(websocket.OpText, []byte("last"))
	closeFrame := websocket.AppendMaskedFrame(nil, websocket.OpClose, true, websocket.ClosePayload(nil, 1000, "bye"), testMask)
	if err := c.fr.WriteData(1, true, closeFrame); err != nil {
		t.Fatal(err)
	}
	if ev := c.next(); ev.Kind != websocket.EventMessage || string(ev.Payload) != "last" {
		t.Fatalf("got %v %q; want the message before the close reply", ev.Kind, ev.Payload)
	}
	if ev := c.next(); ev.Kind != websocket.EventClose || ev.Code != 1000 {
		t.Fatalf("got %v %d; want the close reply 1000", ev.Kind, ev.Code)
	}
	waitFor(t, 5*time.Second, "OnClose", func() bool { return len(rec.closed()) == 1 })
}

// A callback that outlasts CloseTimeout does not hold the close reply
// back longer: at the timeout the writers are done (what the callback
// writes after it is not sent), and the reply goes out as soon as the
// socket is the loop's again (this callback holds it meanwhile, as in
// TestWebSocketCloseFrameBeforeFIN).
func TestWebSocketCloseReplyWaitsAtMostCloseTimeout(t *testing.T) {
	release := make(chan struct{})
	wrote := make(chan error, 1)
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			<-release
			wrote <- ws.WriteMessage(op, data)
		},
		Config: gwist.WSConfig{CloseTimeout: 300 * time.Millisecond},
	}))
	addr := startApp(t, app)
	c := dialWS(t, addr, "/ws")
	b := websocket.AppendMaskedFrame(nil, websocket.OpText, true, []byte("slow"), testMask)
	b = websocket.AppendMaskedFrame(b, websocket.OpClose, true, websocket.ClosePayload(nil, 1000, ""), testMask)
	c.SendRaw(b)
	time.Sleep(2 * time.Second) // CloseTimeout and the sweep that looks at it
	close(release)
	if err := <-wrote; err == nil {
		t.Error("a write after the close timeout succeeded")
	}
	c.ExpectClose(1000) // and no echo before it
}

// The same bound over HTTP/2 (RFC 8441), where the writers never hold the
// socket: the close reply goes out at the timeout, while the callback
// still runs, and what it writes after is not sent.
func TestWebSocketHTTP2CloseReplyWaitsAtMostCloseTimeout(t *testing.T) {
	release := make(chan struct{})
	wrote := make(chan error, 1)
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			<-release
			wrote <- ws.WriteMessage(op, data)
		},
		Config: gwist.WSConfig{CloseTimeout: 300 * time.Millisecond},
	}))
	c := dialH2WS(t, startApp(t, app), false, "/ws")
	defer close(release)
	c.send(websocket.OpText, []byte("slow"))
	c.send(websocket.OpClose, websocket.ClosePayload(nil, 1000, ""))
	start := time.Now()
	if ev := c.next(); ev.Kind != websocket.EventClose || ev.Code != 1000 {
		t.Fatalf("got %v %q; want the close reply 1000 and no echo before it", ev.Kind, ev.Payload)
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("close reply after %v; want it at CloseTimeout (300 ms), not before", d)
	}
	release <- struct{}{}
	if err := <-wrote; err == nil {
		t.Error("a write after the close timeout succeeded")
	}
}
