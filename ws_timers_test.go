package gwist_test

import (
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
)

// A silent peer gets a ping after PingInterval and is closed (OnClose sees
// 1006, nothing more is sent) when nothing answers within PongTimeout; a
// peer that answers stays.
func TestWebSocketKeepalive(t *testing.T) {
	_, addr, rec := startWSApp(t, gwist.WSConfig{PingInterval: 300 * time.Millisecond, PongTimeout: 600 * time.Millisecond})

	silent := dialWS(t, addr, "/ws")
	alive := dialWS(t, addr, "/ws")
	start := time.Now()
	for range 4 { // four rounds of ping and pong, while the silent peer times out
		ev, err := alive.Next()
		if err != nil || ev.Kind != websocket.EventPing {
			t.Fatalf("want a ping, got %v %v", ev.Kind, err)
		}
		alive.SendFrame(websocket.OpPong, true, ev.Payload)
	}
	alive.SendFrame(websocket.OpText, true, []byte("still here"))
	alive.ExpectMessage(websocket.OpText, "still here")

	ev, err := silent.Next()
	if err != nil || ev.Kind != websocket.EventPing {
		t.Fatalf("silent peer: want a ping, got %v %v", ev.Kind, err)
	}
	silent.ExpectEOF()
	if d := time.Since(start); d < 700*time.Millisecond {
		t.Errorf("closed %v after connecting, before the pong timeout", d)
	}
	waitFor(t, 5*time.Second, "the silent peer's OnClose", func() bool { return len(rec.closed()) == 1 })
	if got := rec.closed()[0]; got != websocket.CloseAbnormal {
		t.Fatalf("OnClose code %d, want 1006", got)
	}
}

// IdleTimeout closes with 1001 when no message goes either way, pings and
// pongs notwithstanding.
func TestWebSocketIdleTimeout(t *testing.T) {
	_, addr, _ := startWSApp(t, gwist.WSConfig{IdleTimeout: 500 * time.Millisecond})
	c := dialWS(t, addr, "/ws")
	start := time.Now()
	ev, err := c.Next()
	if err != nil || ev.Kind != websocket.EventClose || ev.Code != websocket.CloseGoingAway {
		t.Fatalf("want close 1001, got %v %d %v", ev.Kind, ev.Code, err)
	}
	if d := time.Since(start); d < 400*time.Millisecond {
		t.Fatalf("closed after %v", d)
	}
	c.SendRaw(websocket.AppendMaskedFrame(nil, websocket.OpClose, true, websocket.ClosePayload(nil, 1001, ""), testMask))
	c.ExpectEOF()
}
