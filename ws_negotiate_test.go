package gwist_test

import (
	"bytes"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
)

// permessage-deflate: negotiated, compressed messages inflated, replies
// compressed, with and without context takeover.
func TestWebSocketDeflate(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()))
	h := &gwist.WSHandler{
		OnMessage:   func(ws *gwist.WSConn, op gwist.Opcode, data []byte) { _ = ws.WriteMessage(op, data) },
		Compression: &websocket.DeflateConfig{},
	}
	app.GET("/ws", gwist.WebSocket(h))
	addr := startApp(t, app)
	for _, offer := range []string{"permessage-deflate", "permessage-deflate; server_no_context_takeover; client_no_context_takeover"} {
		c := dialWS(t, addr, "/ws", "Sec-WebSocket-Extensions: "+offer)
		ext := c.Resp.Header.Get("Sec-WebSocket-Extensions")
		params, _, ok := websocket.NegotiateDeflate([]string{ext}, websocket.DeflateConfig{})
		if !ok {
			t.Fatalf("response extension %q", ext)
		}
		c.Reader = websocket.NewReader(websocket.Config{Client: true, Deflate: &params})
		d := websocket.NewDeflater(params, true)
		for i := range 3 {
			msg := bytes.Repeat([]byte("compress me "+strconv.Itoa(i)+" "), 200)
			c.SendRaw(d.AppendMaskedMessage(nil, websocket.OpText, msg, testMask))
			c.ExpectMessage(websocket.OpText, string(msg))
		}
	}
	// Without an offer: no extension.
	c := dialWS(t, addr, "/ws")
	if ext := c.Resp.Header.Get("Sec-WebSocket-Extensions"); ext != "" {
		t.Fatalf("extension %q without an offer", ext)
	}
}

// Subprotocol selection: the server's first preference the client offers.
func TestWebSocketSubprotocol(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()))
	var got atomic.Value
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		Subprotocols: []string{"v2.chat", "v1.chat"},
		OnOpen:       func(ws *gwist.WSConn) { got.Store(ws.Subprotocol()) },
	}))
	addr := startApp(t, app)
	c := dialWS(t, addr, "/ws", "Sec-WebSocket-Protocol: v1.chat, v2.chat")
	if p := c.Resp.Header.Get("Sec-WebSocket-Protocol"); p != "v2.chat" {
		t.Fatalf("Sec-WebSocket-Protocol %q", p)
	}
	waitFor(t, 5*time.Second, "OnOpen", func() bool { return got.Load() != nil })
	if got.Load() != "v2.chat" {
		t.Fatalf("Subprotocol() %q", got.Load())
	}
	c2 := dialWS(t, addr, "/ws", "Sec-WebSocket-Protocol: other")
	if p := c2.Resp.Header.Get("Sec-WebSocket-Protocol"); p != "" {
		t.Fatalf("Sec-WebSocket-Protocol %q for an unsupported offer", p)
	}
}

// WSHandler.CheckOrigin replaces the same-host rule: here it allows one
// other origin and refuses requests without an Origin.
func TestWebSocketCheckOrigin(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		CheckOrigin: func(c *gwist.Ctx) bool { return c.Header("Origin") == "https://app.example" },
	}))
	addr := startApp(t, app)
	req := func(origin string) int {
		h := "GET /ws HTTP/1.1\r\nHost: " + addr + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
		if origin != "" {
			h += "Origin: " + origin + "\r\n"
		}
		r := dialRaw(t, addr)
		r.send(h + "\r\n")
		status, err := readHead(r)
		if err != nil {
			t.Fatal(err)
		}
		return status
	}
	for origin, want := range map[string]int{"https://app.example": 101, "http://" + addr: 403, "": 403, "https://evil.example": 403} {
		if got := req(origin); got != want {
			t.Errorf("Origin %q: %d, want %d", origin, got, want)
		}
	}
}
