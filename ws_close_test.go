package gwist_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
)

// Shutdown sends close 1001 to every WebSocket and returns once the peers
// answered.
func TestWebSocketShutdown(t *testing.T) {
	rec := &echoRecorder{}
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(rec.handler(gwist.WSConfig{})))
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := dialWS(t, addr.String(), "/ws")
	c.SendFrame(websocket.OpText, true, []byte("x"))
	c.ExpectMessage(websocket.OpText, "x")
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		done <- app.Shutdown(ctx)
	}()
	ev, err := c.Next()
	if err != nil || ev.Kind != websocket.EventClose || ev.Code != websocket.CloseGoingAway {
		t.Fatalf("want close 1001, got %v %d %v", ev.Kind, ev.Code, err)
	}
	c.SendRaw(websocket.AppendMaskedFrame(nil, websocket.OpClose, true, websocket.ClosePayload(nil, websocket.CloseGoingAway, ""), testMask))
	c.ExpectEOF()
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Shutdown took %v", d)
	}
	if got := rec.closed(); len(got) != 1 || got[0] != websocket.CloseGoingAway {
		t.Fatalf("OnClose %v, want [1001]", got)
	}
}

// Server-initiated Close: the close frame follows the queued messages,
// the peer's answer closes the connection, OnClose sees the code.
func TestWebSocketServerClose(t *testing.T) {
	rec := &echoRecorder{}
	h := rec.handler(gwist.WSConfig{})
	h.OnOpen = func(ws *gwist.WSConn) {
		_ = ws.WriteText("one")
		_ = ws.WriteText("two")
		_ = ws.Close(4001, "bye")
		if err := ws.WriteText("three"); !errors.Is(err, gwist.ErrWSClosed) {
			panic(fmt.Sprint("write after Close: ", err))
		}
	}
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(h))
	addr := startApp(t, app)
	c := dialWS(t, addr, "/ws")
	c.ExpectMessage(websocket.OpText, "one")
	c.ExpectMessage(websocket.OpText, "two")
	ev, err := c.Next()
	if err != nil || ev.Kind != websocket.EventClose || ev.Code != 4001 || ev.Reason != "bye" {
		t.Fatalf("want close 4001 bye, got %v %d %q %v", ev.Kind, ev.Code, ev.Reason, err)
	}
	c.SendRaw(websocket.AppendMaskedFrame(nil, websocket.OpClose, true, websocket.ClosePayload(nil, 4001, ""), testMask))
	c.ExpectEOF()
	waitFor(t, 5*time.Second, "OnClose", func() bool { return len(rec.closed()) == 1 })
	if got := rec.closed()[0]; got != 4001 {
		t.Fatalf("OnClose %d", got)
	}
}
