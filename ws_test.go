package gwist_test

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/wstest"
	"github.com/gwist/gwist/websocket"
)

// echoHandler echoes every message back and records the close it saw.
type echoRecorder struct {
	mu     sync.Mutex
	opened int
	closes []websocket.CloseCode
}

func (r *echoRecorder) handler(cfg gwist.WSConfig) *gwist.WSHandler {
	return &gwist.WSHandler{
		OnOpen: func(*gwist.WSConn) { r.mu.Lock(); r.opened++; r.mu.Unlock() },
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			_ = ws.WriteMessage(op, data)
		},
		OnClose: func(_ *gwist.WSConn, code gwist.CloseCode, _ string) {
			r.mu.Lock()
			r.closes = append(r.closes, code)
			r.mu.Unlock()
		},
		Config: cfg,
	}
}

func (r *echoRecorder) closed() []websocket.CloseCode {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]websocket.CloseCode(nil), r.closes...)
}

// startWSApp serves an echo endpoint at /ws and checks, when the test
// ends, that every WebSocket is gone.
func startWSApp(t *testing.T, cfg gwist.WSConfig, opts ...gwist.Option) (*gwist.App, string, *echoRecorder) {
	t.Helper()
	rec := &echoRecorder{}
	app := gwist.New(append([]gwist.Option{gwist.WithLogger(discardLogger())}, opts...)...)
	app.GET("/ws", gwist.WebSocket(rec.handler(cfg)))
	app.GET("/plain", func(c *gwist.Ctx) error { return c.String(200, "plain\n") })
	addr := startApp(t, app)
	t.Cleanup(func() {
		waitFor(t, 5*time.Second, "WebSocket count back to 0", func() bool { return app.Stats().WebSockets == 0 })
	})
	return app, addr, rec
}

func TestWebSocketEcho(t *testing.T) {
	for _, inline := range []bool{false, true} {
		t.Run(map[bool]string{false: "workers", true: "inline"}[inline], func(t *testing.T) {
			app, addr, rec := startWSApp(t, gwist.WSConfig{}, gwist.WithInline(inline))
			c := dialWS(t, addr, "/ws")
			c.SendFrame(websocket.OpText, true, []byte("hello"))
			c.ExpectMessage(websocket.OpText, "hello")
			c.SendFrame(websocket.OpBinary, true, []byte{0, 1, 2, 255})
			c.ExpectMessage(websocket.OpBinary, "\x00\x01\x02\xff")
			// Fragmented, with a ping in the middle.
			c.SendFrame(websocket.OpText, false, []byte("frag"))
			c.SendFrame(websocket.OpPing, true, []byte("p"))
			c.SendFrame(websocket.OpContinuation, true, []byte("mented"))
			ev, err := c.Next()
			if err != nil || ev.Kind != websocket.EventPong || string(ev.Payload) != "p" {
				t.Fatalf("want pong p, got %v %q %v", ev.Kind, ev.Payload, err)
			}
			c.ExpectMessage(websocket.OpText, "fragmented")
			big := bytes.Repeat([]byte("x"), 200<<10)
			c.SendFrame(websocket.OpBinary, true, big)
			c.ExpectMessage(websocket.OpBinary, string(big))
			if n := app.Stats().WebSockets; n != 1 {
				t.Errorf("Stats().WebSockets = %d, want 1", n)
			}
			c.SendRaw(websocket.AppendMaskedFrame(nil, websocket.OpClose, true, websocket.ClosePayload(nil, 1000, "bye"), testMask))
			c.ExpectClose(1000)
			waitFor(t, 5*time.Second, "OnClose", func() bool { return len(rec.closed()) == 1 })
			if got := rec.closed()[0]; got != 1000 {
				t.Errorf("OnClose code %d, want 1000", got)
			}
		})
	}
}

// Frames the client sent right behind its handshake, before the 101, go
// to the WebSocket, not to the HTTP parser.
func TestWebSocketFramesBehindHandshake(t *testing.T) {
	_, addr, _ := startWSApp(t, gwist.WSConfig{})
	r := dialRaw(t, addr)
	frame := websocket.AppendMaskedFrame(nil, websocket.OpText, true, []byte("early"), testMask)
	r.send("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" + string(frame))
	c := wstest.New(t, r.c, r.br)
	resp, err := readHead(r)
	if err != nil || resp != 101 {
		t.Fatalf("status %d %v", resp, err)
	}
	c.ExpectMessage(websocket.OpText, "early")
}

func readHead(r *rawConn) (int, error) {
	line, err := r.br.ReadString('\n')
	if err != nil {
		return 0, err
	}
	status := 0
	if f := strings.Fields(line); len(f) > 1 {
		for _, ch := range f[1] {
			status = status*10 + int(ch-'0')
		}
	}
	for {
		l, err := r.br.ReadString('\n')
		if err != nil {
			return status, err
		}
		if l == "\r\n" {
			return status, nil
		}
	}
}

func TestWebSocketHandshakeErrors(t *testing.T) {
	_, addr, rec := startWSApp(t, gwist.WSConfig{})
	base := "Host: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
	key := "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	cases := []struct {
		name, req string
		status    int
		header    [2]string
	}{
		{"no key", "GET /ws HTTP/1.1\r\n" + base + "\r\n", 400, [2]string{}},
		{"short key", "GET /ws HTTP/1.1\r\n" + base + "Sec-WebSocket-Key: c2hvcnQ=\r\n\r\n", 400, [2]string{}},
		{"bad base64 key", "GET /ws HTTP/1.1\r\n" + base + "Sec-WebSocket-Key: !!!!!!!!!!!!!!!!!!!!!!!!\r\n\r\n", 400, [2]string{}},
		{"version 8", "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 8\r\n" + key + "\r\n",
			426, [2]string{"Sec-WebSocket-Version", "13"}},
		{"no version", "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" + key + "\r\n",
			426, [2]string{"Sec-WebSocket-Version", "13"}},
		{"no upgrade", "GET /ws HTTP/1.1\r\nHost: x\r\n\r\n", 426, [2]string{"Upgrade", "websocket"}},
		{"connection without upgrade", "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: keep-alive\r\nSec-WebSocket-Version: 13\r\n" + key + "\r\n",
			426, [2]string{"Upgrade", "websocket"}},
		{"POST", "POST /ws HTTP/1.1\r\n" + base + key + "Content-Length: 0\r\n\r\n", 405, [2]string{"Allow", "GET, HEAD, OPTIONS"}},
		{"HTTP/1.0", "GET /ws HTTP/1.0\r\n" + base + key + "\r\n", 400, [2]string{}},
		{"cross origin", "GET /ws HTTP/1.1\r\n" + base + key + "Origin: https://evil.example\r\n\r\n", 403, [2]string{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp, _ := rawWSRequest(t, addr, tc.req)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if tc.header[0] != "" && resp.Header.Get(tc.header[0]) != tc.header[1] {
				t.Errorf("%s: %q, want %q", tc.header[0], resp.Header.Get(tc.header[0]), tc.header[1])
			}
		})
	}
	// The same-host origin is accepted; the connection after a refused
	// handshake still serves HTTP.
	c := dialWS(t, addr, "/ws", "Origin: http://"+addr)
	c.SendFrame(websocket.OpText, true, []byte("ok"))
	c.ExpectMessage(websocket.OpText, "ok")
	r := dialRaw(t, addr)
	r.send("GET /ws HTTP/1.1\r\nHost: x\r\n\r\nGET /plain HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, _ := r.readResponse("GET"); resp.StatusCode != 426 {
		t.Fatalf("first: %d", resp.StatusCode)
	}
	if resp, body := r.readResponse("GET"); resp.StatusCode != 200 || body != "plain\n" {
		t.Fatalf("pipelined behind a refused handshake: %d %q", resp.StatusCode, body)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.opened != 1 {
		t.Errorf("opened %d, want 1", rec.opened)
	}
}

// Every protocol violation gets its close code on the wire, then the
// server closes the connection (Autobahn groups 1-7 in miniature).
func TestWebSocketProtocolErrors(t *testing.T) {
	_, addr, rec := startWSApp(t, gwist.WSConfig{MaxMessage: 64 << 10})
	mask := func(op websocket.Opcode, fin bool, p []byte) []byte {
		return websocket.AppendMaskedFrame(nil, op, fin, p, testMask)
	}
	withRSV := func(b []byte, bits byte) []byte { b[0] |= bits; return b }
	cases := []struct {
		name  string
		frame []byte
		code  websocket.CloseCode
	}{
		{"unmasked", websocket.AppendFrame(nil, websocket.OpText, true, []byte("hi")), 1002},
		{"rsv1 without extension", withRSV(mask(websocket.OpText, true, []byte("hi")), 0x40), 1002},
		{"rsv2", withRSV(mask(websocket.OpBinary, true, nil), 0x20), 1002},
		{"rsv3", withRSV(mask(websocket.OpBinary, true, nil), 0x10), 1002},
		{"reserved opcode 3", mask(3, true, nil), 1002},
		{"reserved control opcode 11", mask(11, true, nil), 1002},
		{"oversized ping", mask(websocket.OpPing, true, bytes.Repeat([]byte("a"), 126)), 1002},
		{"fragmented ping", mask(websocket.OpPing, false, []byte("a")), 1002},
		{"continuation without start", mask(websocket.OpContinuation, true, []byte("a")), 1002},
		{"text inside fragmented text", append(mask(websocket.OpText, false, []byte("a")), mask(websocket.OpText, true, []byte("b"))...), 1002},
		{"bad utf-8", mask(websocket.OpText, true, []byte{0xce, 0xba, 0xe1, 0xbd, 0xb9, 0xcf, 0x83, 0xce, 0xbc, 0xce, 0xb5, 0xed, 0xa0, 0x80}), 1007},
		{"bad utf-8 across fragments", append(mask(websocket.OpText, false, []byte{0xce}), mask(websocket.OpContinuation, true, []byte{0x41})...), 1007},
		{"close code 1005", mask(websocket.OpClose, true, []byte{0x03, 0xed}), 1002},
		{"close code 999", mask(websocket.OpClose, true, []byte{0x03, 0xe7}), 1002},
		{"close code 5000", mask(websocket.OpClose, true, []byte{0x13, 0x88}), 1002},
		{"close with 1 byte", mask(websocket.OpClose, true, []byte{0x03}), 1002},
		{"close reason bad utf-8", mask(websocket.OpClose, true, []byte{0x03, 0xe8, 0xff}), 1007},
		{"message over the limit", mask(websocket.OpBinary, true, make([]byte, 64<<10+1)), 1009},
		{"fragments over the limit", append(mask(websocket.OpBinary, false, make([]byte, 40<<10)), mask(websocket.OpContinuation, true, make([]byte, 40<<10))...), 1009},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dialWS(t, addr, "/ws")
			c.SendFrame(websocket.OpText, true, []byte("before"))
			c.ExpectMessage(websocket.OpText, "before")
			c.SendRaw(tc.frame)
			c.ExpectClose(tc.code)
		})
	}
	waitFor(t, 5*time.Second, "every OnClose", func() bool { return len(rec.closed()) == len(cases) })
}

// A WriteMessage from any goroutine; the read queue's cap pauses reading
// while OnMessage is slow, and messages still arrive whole and in order.
func TestWebSocketSlowCallbacksPauseReading(t *testing.T) {
	var got atomic.Int64
	release := make(chan struct{})
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			<-release
			if n := got.Add(1); n%100 == 0 {
				_ = ws.WriteText("ok")
			}
		},
		Config: gwist.WSConfig{MaxReadQueue: 4},
	}))
	addr := startApp(t, app)
	c := dialWS(t, addr, "/ws")
	payload := bytes.Repeat([]byte("y"), 1000)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 16000 { // 16 MB: more than the socket buffers hold
			if _, err := c.Conn.Write(websocket.AppendMaskedFrame(nil, websocket.OpBinary, true, payload, testMask)); err != nil {
				return
			}
		}
	}()
	time.Sleep(300 * time.Millisecond)
	st := app.Stats()
	// Reading paused: the server holds the queue's 4 messages and at most
	// a few reads, not the 2 MB the client is trying to send.
	if st.Backpressure.PeakInbound > 1<<20 {
		t.Errorf("PeakInbound %d while callbacks were blocked", st.Backpressure.PeakInbound)
	}
	select {
	case <-done:
		t.Fatal("the client wrote 16 MB while the server's callbacks were blocked: reading did not pause")
	default:
	}
	close(release)
	<-done
	for range 160 {
		c.ExpectMessage(websocket.OpText, "ok")
	}
	if got.Load() != 16000 {
		t.Fatalf("got %d messages, want 16000", got.Load())
	}
}

// The close frame answering a protocol violation is on the wire before
// the FIN, also when the violation arrives while a worker holds the write
// side (its callback echoed and has not returned): the close frame then
// waits in the writers' queue, and the close must wait for it. Before,
// the FIN went out at once and the close frame after it, lost (the
// client read EOF); TestWebSocketProtocolErrors met it about once in 50
// runs under load.
func TestWebSocketCloseFrameBeforeFIN(t *testing.T) {
	release := make(chan struct{})
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			_ = ws.WriteMessage(op, data)
			<-release // holds the write side, as a slow callback does
		},
	}))
	addr := startApp(t, app)
	c := dialWS(t, addr, "/ws")
	c.SendFrame(websocket.OpText, true, []byte("before"))
	c.ExpectMessage(websocket.OpText, "before")
	bad := websocket.AppendMaskedFrame(nil, websocket.OpBinary, true, nil, testMask)
	bad[0] |= 0x20 // RSV2 without an extension
	c.SendRaw(bad)
	time.Sleep(100 * time.Millisecond) // the loop answers the violation meanwhile
	close(release)
	c.ExpectClose(1002)
}
