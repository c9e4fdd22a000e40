//go:build unix

package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/websocket"
)

// hello answers every request 200 "hello" (inline), and a request the
// engine refused with the refusal's status, as the root package does.
func hello(ex *Exchange) {
	if status, _ := ex.Refused(); status != 0 {
		ex.Status = status
		return
	}
	ex.Status = 200
	ex.Body = append(ex.Body, "hello"...)
}

// The header read timeout: a request head that stops arriving is answered
// 408 after HeaderReadTimeout (not before), then the connection closes.
func TestHeaderReadTimeout(t *testing.T) {
	h := newHarness(t, Config{Inline: true}, hello)
	p := h.dial()
	p.send("GET / HTTP/1.1\r\nHost: x\r\n")
	h.advance(DefaultHeaderReadTimeout - time.Second)
	if got := p.read(); got != "" || p.closed() {
		t.Fatalf("before the timeout: %q, closed %v", got, p.closed())
	}
	h.advance(time.Second)
	if got := p.read(); !strings.HasPrefix(got, "HTTP/1.1 408 ") {
		t.Fatalf("at the timeout: %q", got)
	}
	h.advance(lingerTimeout)
	if !p.closed() {
		t.Fatal("not closed after the 408")
	}
}

// The idle timeout closes a keep-alive connection with nothing in flight;
// a request restarts it.
func TestIdleTimeout(t *testing.T) {
	h := newHarness(t, Config{Inline: true}, hello)
	p := h.dial()
	p.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if got := p.read(); !strings.HasPrefix(got, "HTTP/1.1 200 ") || !strings.HasSuffix(got, "hello") {
		t.Fatalf("response: %q", got)
	}
	h.advance(DefaultIdleTimeout - time.Second)
	p.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	p.read()
	h.advance(DefaultIdleTimeout - time.Second)
	if p.closed() {
		t.Fatal("closed before its idle timeout (the request restarted it)")
	}
	h.advance(time.Second)
	if !p.closed() {
		t.Fatal("not closed at its idle timeout")
	}
}

// A buffered request body that stops arriving is answered 408 after
// BodyReadTimeout, counted.
func TestBodyReadTimeoutHTTP1(t *testing.T) {
	h := newHarness(t, Config{Inline: true}, hello)
	p := h.dial()
	p.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
	h.advance(DefaultBodyReadTimeout - time.Second)
	if got := p.read(); got != "" {
		t.Fatalf("before the timeout: %q", got)
	}
	h.advance(time.Second)
	if got := p.read(); !strings.HasPrefix(got, "HTTP/1.1 408 ") {
		t.Fatalf("at the timeout: %q", got)
	}
	if n := h.srv.PipeStats().BodyReadTimeouts; n != 1 {
		t.Fatalf("BodyReadTimeouts = %d", n)
	}
}

// A client that stops reading its responses is cut off after WriteTimeout
// without progress, and counted; while it reads, however slowly, it is not.
func TestWriteTimeout(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	h := newHarness(t, Config{Inline: true}, func(ex *Exchange) {
		ex.Status = 200
		ex.Body = append(ex.Body, big...)
	})
	p := h.dial()
	p.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if p.fc.OutboundBuffered() == 0 {
		t.Fatal("the socket took a 1 MiB response whole: the test needs a full socket")
	}
	h.advance(DefaultWriteTimeout - time.Second)
	if p.closed() {
		t.Fatal("cut before the write timeout")
	}
	h.advance(time.Second)
	if !p.closed() {
		t.Fatal("not cut at the write timeout")
	}
	if n := h.srv.PipeStats().WriteTimeouts; n != 1 {
		t.Fatalf("WriteTimeouts = %d", n)
	}
}

// wsEvents records a WebSocket's callbacks.
type wsEvents struct {
	opened bool
	msgs   []string
	closed websocket.CloseCode
}

func (e *wsEvents) OnOpen(*WSConn) { e.opened = true }
func (e *wsEvents) OnMessage(ws *WSConn, op websocket.Opcode, data []byte) {
	e.msgs = append(e.msgs, string(data))
}
func (e *wsEvents) OnClose(_ *WSConn, code websocket.CloseCode, _ string) { e.closed = code }

// upgradeTo answers GET /ws by upgrading to a WebSocket for ev (inline).
func upgradeTo(ev *wsEvents, cfg WSConfig) Handler {
	cfg = cfg.WithDefaults()
	return func(ex *Exchange) {
		if ex.Request.Path != "/ws" {
			hello(ex)
			return
		}
		if _, err := ex.UpgradeWebSocket(WSUpgrade{Handler: ev, Config: &cfg}); err != nil {
			ex.Status = 500
		}
	}
}

// WebSocket keepalive on the sweep: a ping after PingInterval without
// input, and the connection closed (OnClose sees 1006) when nothing comes
// back within PongTimeout; anything from the peer counts as an answer.
func TestWebSocketKeepalive(t *testing.T) {
	ev := &wsEvents{}
	h := newHarness(t, Config{Inline: true}, upgradeTo(ev, WSConfig{}))
	p := h.dial()
	p.send("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
	if got := p.read(); !strings.HasPrefix(got, "HTTP/1.1 101 ") || !ev.opened {
		t.Fatalf("upgrade: %q, opened %v", got, ev.opened)
	}
	h.advance(DefaultWSPingInterval)
	if got := p.read(); got != "\x89\x00" {
		t.Fatalf("after PingInterval: %q, want an empty ping", got)
	}
	// A pong (masked, empty) answers it.
	p.send(string(websocket.AppendMaskedFrame(nil, websocket.OpPong, true, nil, [4]byte{1, 2, 3, 4})))
	h.advance(DefaultWSPongTimeout)
	if p.closed() {
		t.Fatal("closed although the pong came")
	}
	h.advance(DefaultWSPingInterval - DefaultWSPongTimeout) // the next ping
	if got := p.read(); got != "\x89\x00" {
		t.Fatalf("second ping: %q", got)
	}
	h.advance(DefaultWSPongTimeout)
	if !p.closed() || ev.closed != websocket.CloseAbnormal {
		t.Fatalf("no pong: closed %v, OnClose code %d", p.closed(), ev.closed)
	}
}

// The drain closes an idle keep-alive connection after its grace, and
// answers a request in flight with Connection: close.
func TestDrainClosesIdleConnections(t *testing.T) {
	h := newHarness(t, Config{Inline: true}, hello)
	idle := h.dial()
	idle.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	idle.read()
	h.srv.draining.Store(true)
	busy := h.dial()
	busy.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if got := busy.read(); !strings.Contains(got, "Connection: close") {
		t.Fatalf("a request during the drain: %q", got)
	}
	h.advance(0)
	if idle.closed() {
		t.Fatal("an idle connection closed at once, without its grace")
	}
	h.advance(drainIdleGrace)
	if !idle.closed() {
		t.Fatal("an idle connection survived the drain's grace")
	}
}

// A streamed body's BodyReadTimeout runs while the handler waits in Read
// for bytes that do not come (Read fails, 408, close), but not while the
// handler is the one not reading: the pipe is full and the client held
// back by the server, for three times the timeout here.
func TestStreamedBodyReadTimeout(t *testing.T) {
	streamAll := func(*http1.Request) (int64, bool) { return 0, true }
	t.Run("the client stalls", func(t *testing.T) {
		h := newHarness(t, Config{StreamBody: streamAll}, upload)
		p := h.dial()
		p.send("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + strings.Repeat("x", 10))
		h.runUntil("the handler to wait in Read", func() bool { return h.srv.PipeStats().PeakBodyBuffered > 0 })
		h.advance(DefaultBodyReadTimeout - time.Second)
		if got := p.read(); got != "" || p.closed() {
			t.Fatalf("before the timeout: %q, closed %v", got, p.closed())
		}
		h.advance(time.Second)
		var got string
		h.runUntil("the 408", func() bool { got += p.read(); return strings.Contains(got, "\r\n\r\n") })
		if !strings.HasPrefix(got, "HTTP/1.1 408 ") {
			t.Fatalf("at the timeout: %q", got)
		}
		h.advance(lingerTimeout)
		if !p.closed() {
			t.Fatal("not closed after the 408")
		}
		if n := h.srv.PipeStats().BodyReadTimeouts; n != 1 {
			t.Fatalf("BodyReadTimeouts = %d", n)
		}
	})
	t.Run("the handler does not read", func(t *testing.T) {
		release := make(chan struct{})
		h := newHarness(t, Config{StreamBody: streamAll, MaxBodyBuffered: 4 << 10}, func(ex *Exchange) {
			<-release
			upload(ex)
		})
		p := h.dial()
		body := strings.Repeat("0123456789", 3000) // 30,000 bytes, far past the pipe
		p.send("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 30000\r\n\r\n" + body[:10000])
		h.advance(3 * DefaultBodyReadTimeout)
		if got, n := p.read(), h.srv.PipeStats().BodyReadTimeouts; got != "" || p.closed() || n != 0 {
			t.Fatalf("while the handler did not read: %q, closed %v, %d body read timeouts", got, p.closed(), n)
		}
		close(release)
		p.send(body[10000:])
		var got string
		h.runUntil("the response", func() bool { got += p.read(); return strings.HasSuffix(got, "09") })
		if !strings.HasPrefix(got, "HTTP/1.1 200 ") {
			t.Fatalf("a handler that reads late: %q", got)
		}
		if n := h.srv.PipeStats().BodyReadTimeouts; n != 0 {
			t.Fatalf("BodyReadTimeouts = %d", n)
		}
	})
}
