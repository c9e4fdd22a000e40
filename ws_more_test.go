package gwist_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
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

// A hub sends one message to every member; members leave when they close;
// a member over its cap is closed with 1008 and the others go on.
func TestWebSocketHub(t *testing.T) {
	hub := gwist.NewWSHub()
	var opened atomic.Int32
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnOpen: func(ws *gwist.WSConn) { hub.Add(ws); opened.Add(1) },
		Config: gwist.WSConfig{MaxQueued: 1 << 20, CloseTimeout: 500 * time.Millisecond},
	}))
	addr := startApp(t, app)
	const n = 20
	var clients []*wsClient
	for range n {
		clients = append(clients, dialWS(t, addr, "/ws"))
	}
	waitFor(t, 5*time.Second, "every OnOpen", func() bool { return opened.Load() == n })
	for i := range 3 {
		if sent, dropped := hub.Broadcast(websocket.OpText, []byte("news "+strconv.Itoa(i))); sent != n || dropped != 0 {
			t.Fatalf("Broadcast: sent %d dropped %d", sent, dropped)
		}
	}
	for _, c := range clients {
		for i := range 3 {
			c.ExpectMessage(websocket.OpText, "news "+strconv.Itoa(i))
		}
	}
	clients[0].Conn.Close()
	waitFor(t, 5*time.Second, "the closed member to leave", func() bool { return hub.Len() == n-1 })

	// clients[1] stops reading (with a small receive buffer, to fill
	// sooner); the others read everything.
	_ = clients[1].Conn.(*net.TCPConn).SetReadBuffer(4096)
	big := bytes.Repeat([]byte("b"), 16<<10)
	const frame = 4 + 16<<10 // a 16 KiB message's frame: 2 bytes of header, 2 of length
	var wg sync.WaitGroup
	read := make([]atomic.Int64, len(clients)-2)
	for i, c := range clients[2:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.Conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			_, _ = io.Copy(countingWriter{&read[i]}, c.BR)
		}()
	}
	dropped := 0
	rounds := 0
	for ; rounds < 5000 && dropped == 0; rounds++ {
		_, dropped = hub.Broadcast(websocket.OpBinary, big)
		// The readers keep up: the next broadcast once they have this one.
		waitFor(t, 5*time.Second, "the readers to read the broadcast", func() bool {
			for i := range read {
				if read[i].Load() < int64(rounds+1)*frame {
					return false
				}
			}
			return true
		})
	}
	if dropped != 1 {
		t.Fatalf("dropped %d, want the one slow member (after %d broadcasts)", dropped, rounds)
	}
	// The server closed it (1008, then CloseTimeout: it reads nothing),
	// and it left the hub.
	waitFor(t, 5*time.Second, "the slow member to be closed and leave", func() bool { return hub.Len() == n-2 })
	clients[1].Conn.Close()
	for _, c := range clients[2:] {
		c.Conn.Close()
	}
	wg.Wait()
}

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

// wss://: the same over TLS, echo and the close handshake.
func TestWebSocketTLS(t *testing.T) {
	rec := &echoRecorder{}
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(rec.handler(gwist.WSConfig{})))
	addr := startTLS(t, app, serverTLSConfig(t))
	c := dialWSS(t, addr, "/ws", &tls.Config{RootCAs: getPKI(t).pool, ServerName: "localhost"})
	for _, n := range []int{5, 70 << 10, 1} {
		msg := bytes.Repeat([]byte("t"), n)
		c.SendFrame(websocket.OpBinary, true, msg)
		c.ExpectMessage(websocket.OpBinary, string(msg))
	}
	c.SendRaw(websocket.AppendMaskedFrame(nil, websocket.OpClose, true, websocket.ClosePayload(nil, 4000, "done"), testMask))
	c.ExpectClose(4000)
	waitFor(t, 5*time.Second, "no WebSocket left", func() bool { return app.Stats().WebSockets == 0 })
}

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

// countingWriter discards what it is given and counts it.
type countingWriter struct{ n *atomic.Int64 }

func (w countingWriter) Write(p []byte) (int, error) {
	w.n.Add(int64(len(p)))
	return len(p), nil
}
