package wsclient_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/websocket"
	"github.com/gwist/gwist/websocket/wsclient"
)

func TestMain(m *testing.M) {
	// IgnoreCurrent: gnet starts its own package-level goroutine pool at init.
	goleak.VerifyTestMain(m, goleak.IgnoreCurrent())
}

// closed records the server's OnClose.
type closed struct {
	code   websocket.CloseCode
	reason string
}

// echoApp echoes every message; "close" makes the server close with 4001.
func echoApp(cfg gwist.WSConfig, closes chan<- closed) *gwist.App {
	app := gwist.New(gwist.WithLogger(slog.New(slog.DiscardHandler)))
	app.GET("/echo", gwist.WebSocket(&gwist.WSHandler{
		Subprotocols: []string{"echo.v1"},
		Compression:  &websocket.DeflateConfig{},
		Config:       cfg,
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			if string(data) == "close" {
				_ = ws.Close(4001, "bye")
				return
			}
			_ = ws.WriteMessage(op, data)
		},
		OnClose: func(ws *gwist.WSConn, code gwist.CloseCode, reason string) {
			if closes != nil {
				closes <- closed{code, reason}
			}
		},
	}))
	app.GET("/plain", func(c *gwist.Ctx) error { return c.String(200, "not a socket") })
	return app
}

// servers serves app on a gwist listener and under httptest (ServeHTTP,
// the connection hijacked from net/http); it returns their ws:// bases.
func servers(t *testing.T, app func() *gwist.App) map[string]string {
	t.Helper()
	a := app()
	addr := testkit.Serve(t, func() (net.Addr, error) { return a.Start("127.0.0.1:0") }, a.Shutdown)
	srv := httptest.NewServer(app())
	t.Cleanup(srv.Close)
	return map[string]string{"gwist": "ws://" + addr, "httptest": "ws" + strings.TrimPrefix(srv.URL, "http")}
}

func dial(t *testing.T, url string, opts *wsclient.Options) *wsclient.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, resp, err := wsclient.Dial(ctx, url, opts)
	if err != nil {
		t.Fatalf("Dial %s: %v", url, err)
	}
	if resp.StatusCode != 101 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	t.Cleanup(func() { c.NetConn().Close() })
	return c
}

// Text, binary and a 1 MiB message round trip, with and without
// permessage-deflate, against gwist's listener and under httptest.
func TestEcho(t *testing.T) {
	for name, base := range servers(t, func() *gwist.App { return echoApp(gwist.WSConfig{}, nil) }) {
		for _, compress := range []bool{false, true} {
			opts := &wsclient.Options{Subprotocols: []string{"other", "echo.v1"}}
			if compress {
				opts.Compression = &websocket.DeflateConfig{}
			}
			c := dial(t, base+"/echo", opts)
			if c.Subprotocol() != "echo.v1" || c.Compressed() != compress {
				t.Fatalf("%s: subprotocol %q, compressed %v", name, c.Subprotocol(), c.Compressed())
			}
			big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
			for _, m := range []struct {
				op   websocket.Opcode
				data []byte
			}{{websocket.OpText, []byte("héllo")}, {websocket.OpBinary, []byte{0, 1, 2, 255}}, {websocket.OpBinary, big}} {
				if err := c.WriteMessage(m.op, m.data); err != nil {
					t.Fatal(err)
				}
				op, data, err := c.ReadMessage()
				if err != nil || op != m.op || !bytes.Equal(data, m.data) {
					t.Fatalf("%s compress=%v: %v %d bytes %v", name, compress, op, len(data), err)
				}
			}
			if err := c.Close(websocket.CloseNormal, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// The close handshake both ways: the server's code reaches ReadMessage,
// the client's reaches OnClose.
func TestCloseHandshake(t *testing.T) {
	closes := make(chan closed, 4)
	for name, base := range servers(t, func() *gwist.App { return echoApp(gwist.WSConfig{}, closes) }) {
		c := dial(t, base+"/echo", nil)
		c.WriteText("close")
		_, _, err := c.ReadMessage()
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != 4001 || ce.Reason != "bye" {
			t.Fatalf("%s: server close: %v", name, err)
		}
		if got := <-closes; got.code != 4001 {
			t.Fatalf("%s: OnClose after the server's close: %+v", name, got)
		}
		c = dial(t, base+"/echo", nil)
		if err := c.Close(4002, "client done"); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-closes:
			if got != (closed{4002, "client done"}) {
				t.Fatalf("%s: OnClose %+v", name, got)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no OnClose after the client's close", name)
		}
		if err := c.WriteText("late"); err == nil {
			t.Fatalf("%s: a write after Close succeeded", name)
		}
	}
}

// A client blocked in ReadMessage answers the server's pings: with a
// 100 ms ping interval and pong timeout the connection outlives many of
// them; a client that does not read is dropped (1006 on the server).
func TestPingsAnswered(t *testing.T) {
	closes := make(chan closed, 4)
	cfg := gwist.WSConfig{PingInterval: 100 * time.Millisecond, PongTimeout: 300 * time.Millisecond}
	for name, base := range servers(t, func() *gwist.App { return echoApp(cfg, closes) }) {
		var pongs atomic.Int32
		c := dial(t, base+"/echo", &wsclient.Options{NetDial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			nc, err := testkit.Dialer()(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return pongCounter{nc, &pongs}, nil
		}})
		got := make(chan string, 1)
		go func() {
			_, data, err := c.ReadMessage()
			if err != nil {
				got <- err.Error()
			}
			got <- string(data)
		}()
		// The reader answers the pings meanwhile: ten of them, past three
		// pong timeouts.
		testkit.WaitFor(t, 10*time.Second, "10 pings answered", func() bool { return pongs.Load() >= 10 })
		if err := c.WriteText("still here"); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if s := <-got; s != "still here" {
			t.Fatalf("%s: %q", name, s)
		}
		c.Close(websocket.CloseNormal, "")
		<-closes

		idle := dial(t, base+"/echo", nil) // reads nothing: no pongs
		select {
		case got := <-closes:
			if got.code != websocket.CloseAbnormal {
				t.Fatalf("%s: a client without pongs closed with %+v", name, got)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: a client that sends no pongs was not dropped", name)
		}
		idle.NetConn().Close()
	}
}

// A handshake the server refuses is a *HandshakeError with its response.
func TestHandshakeRefused(t *testing.T) {
	for name, base := range servers(t, func() *gwist.App { return echoApp(gwist.WSConfig{}, nil) }) {
		_, resp, err := wsclient.Dial(context.Background(), base+"/plain", nil)
		var he *wsclient.HandshakeError
		if !errors.As(err, &he) || resp == nil || resp.StatusCode != 200 {
			t.Fatalf("%s: %v %v", name, resp, err)
		}
		_, resp, err = wsclient.Dial(context.Background(), base+"/echo", &wsclient.Options{Header: map[string][]string{"Origin": {"http://evil.example"}}})
		if !errors.As(err, &he) || resp.StatusCode != 403 {
			t.Fatalf("%s: cross-origin: %v %v", name, resp, err)
		}
	}
}

// wss:// to an App under httptest.NewTLSServer: TLS, then the handshake
// and the connection hijacked from net/http's TLS server.
func TestWSS(t *testing.T) {
	srv := httptest.NewTLSServer(echoApp(gwist.WSConfig{}, nil))
	defer srv.Close()
	tlsCfg := srv.Client().Transport.(interface{ Clone() *http.Transport }).Clone().TLSClientConfig
	c := dial(t, "wss"+strings.TrimPrefix(srv.URL, "https")+"/echo", &wsclient.Options{TLSConfig: tlsCfg,
		Compression: &websocket.DeflateConfig{ServerNoContextTakeover: true, ClientNoContextTakeover: true}})
	if !c.Compressed() {
		t.Fatal("permessage-deflate not negotiated")
	}
	for i := range 3 {
		msg := strings.Repeat("secure ", 100*(i+1))
		c.WriteText(msg)
		if _, data, err := c.ReadMessage(); err != nil || string(data) != msg {
			t.Fatalf("message %d: %d bytes %v", i, len(data), err)
		}
	}
	c.Close(websocket.CloseNormal, "")
}

// pongCounter counts the pongs a client writes (a frame's first byte:
// FIN and opcode 0xA; wsclient writes a frame in one Write).
type pongCounter struct {
	net.Conn
	n *atomic.Int32
}

func (c pongCounter) Write(p []byte) (int, error) {
	if len(p) > 0 && p[0] == 0x80|byte(websocket.OpPong) {
		c.n.Add(1)
	}
	return c.Conn.Write(p)
}
