package gwist_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
	"github.com/gwist/gwist/websocket/wsclient"
)

// A WebSocket route under httptest.NewServer(app): the connection is taken
// from net/http and the same WSHandler, WSHub and close handshake work;
// Shutdown closes it with 1001.
func TestWebSocketUnderServeHTTP(t *testing.T) {
	hub := gwist.NewWSHub()
	opened := make(chan *gwist.WSConn, 4)
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.Use(func(next gwist.HandlerFunc) gwist.HandlerFunc { // app-level middleware runs around the handshake
		return func(c *gwist.Ctx) error {
			c.SetHeader("X-Seen", "yes")
			return next(c)
		}
	})
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnOpen: func(ws *gwist.WSConn) { hub.Add(ws); opened <- ws },
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			_ = ws.WriteMessage(op, append([]byte("echo: "), data...))
		},
	}))
	srv := httptest.NewServer(app)
	defer srv.Close()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/ws"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a, resp, err := wsclient.Dial(ctx, url, nil)
	if err != nil || resp.Header.Get("X-Seen") != "yes" {
		t.Fatalf("Dial: %v %v", resp, err)
	}
	defer a.NetConn().Close()
	b, _, err := wsclient.Dial(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.NetConn().Close()
	ws := <-opened
	<-opened
	if ws.OverHTTP2() || ws.RemoteAddr() == nil {
		t.Fatalf("WSConn: h2 %v, remote %v", ws.OverHTTP2(), ws.RemoteAddr())
	}
	a.WriteText("hi")
	if _, data, err := a.ReadMessage(); err != nil || string(data) != "echo: hi" {
		t.Fatalf("echo: %q %v", data, err)
	}
	if sent, dropped := hub.Broadcast(gwist.TextMessage, []byte("to all")); sent != 2 || dropped != 0 {
		t.Fatalf("Broadcast: %d %d", sent, dropped)
	}
	for i, c := range []*wsclient.Conn{a, b} {
		if _, data, err := c.ReadMessage(); err != nil || string(data) != "to all" {
			t.Fatalf("client %d: %q %v", i, data, err)
		}
	}
	b.Close(websocket.CloseNormal, "")
	waitFor(t, 5*time.Second, "the closed socket to leave the hub", func() bool { return hub.Len() == 1 })

	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	go app.Shutdown(sctx)
	_, _, err = a.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
		t.Fatalf("after Shutdown: %v", err)
	}
}

// Where the connection cannot be taken (a ResponseWriter without Hijack,
// HTTP/2 through net/http) the route answers 501.
func TestWebSocketUnderServeHTTPNotHijackable(t *testing.T) {
	app := gwist.New()
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{}))
	req := httptest.NewRequest("GET", "/ws", nil)
	req.Header.Set("Connection", "Upgrade")
	req.Header.Set("Upgrade", "websocket")
	req.Header.Set("Sec-WebSocket-Version", "13")
	req.Header.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	rec := httptest.NewRecorder()
	app.ServeHTTP(rec, req)
	if rec.Code != http.StatusNotImplemented {
		t.Fatalf("recorder: %d %q", rec.Code, rec.Body.String())
	}
}
