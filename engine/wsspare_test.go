//go:build unix

package engine

import (
	"strings"
	"sync"
	"testing"
	"time"

	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/gwist/gwist/http2"
	"github.com/gwist/gwist/websocket"
)

// echoer echoes every message from a worker and keeps its WSConn.
type echoer struct {
	mu sync.Mutex
	ws *WSConn
}

func (e *echoer) OnOpen(ws *WSConn) {
	e.mu.Lock()
	e.ws = ws
	e.mu.Unlock()
}
func (e *echoer) OnMessage(ws *WSConn, op websocket.Opcode, data []byte) {
	_ = ws.WriteMessage(op, data)
}
func (e *echoer) OnClose(*WSConn, websocket.CloseCode, string) {}

// spares reports whether ws holds a spare batch and a spare payload buffer.
func spares(ws *WSConn) (batch, payload bool) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.spareBatch != nil, ws.spare != nil || ws.loopSpare != nil
}

// waitCallbacksIdle runs the harness until no worker runs ws's callbacks.
func waitCallbacksIdle(h *harness, ws *WSConn) {
	h.t.Helper()
	h.runUntil("the worker to finish", func() bool {
		ws.mu.Lock()
		defer ws.mu.Unlock()
		return !ws.running
	})
}

// busyThenQuiet runs three echoes (echo sends one message and checks its
// answer), checks that ws then keeps both spares, and that the sweep
// takes them back.
func busyThenQuiet(t *testing.T, h *harness, ws *WSConn, echo func()) {
	t.Helper()
	for range 3 {
		echo()
	}
	waitCallbacksIdle(h, ws)
	if b, pl := spares(ws); !b || !pl {
		t.Fatalf("after three echoes: spare batch %v, spare payload %v; want both kept", b, pl)
	}
	h.advance(time.Second) // the sweep
	if b, pl := spares(ws); b || pl {
		t.Fatalf("after a quiet sweep: spare batch %v, spare payload %v; want both given back", b, pl)
	}
}

// A busy WebSocket keeps its batch and a payload buffer (of a message too
// big to travel in its batch) between messages (wsevents.go), and gives
// them back, with the rest of its per-message
// state, at the first sweep that finds it quiet; a connection that only
// opened keeps none: an idle connection holds none of them.
func TestWebSocketQuietGivesSparesBack(t *testing.T) {
	ev := &echoer{}
	h, p, in := upgradedOnWorkers(t, ev)
	ws := openedWS(h, ev)
	// A connection that only opened is not busy: an idle one keeps nothing.
	if b, pl := spares(ws); b || pl {
		t.Fatalf("after OnOpen: spare batch %v, spare payload %v; want neither", b, pl)
	}
	mask := [4]byte{1, 2, 3, 4}
	// Bigger than a batch carries (wsInlinePayload): it takes a payload buffer.
	msg := []byte(strings.Repeat("m", wsInlinePayload+1))
	want := string(websocket.AppendFrame(nil, websocket.OpText, true, msg))
	busyThenQuiet(t, h, ws, func() {
		p.send(string(websocket.AppendMaskedFrame(nil, websocket.OpText, true, msg, mask)))
		h.runUntil("the echo", func() bool { in += p.read(); return len(in) >= len(want) })
		if in[:len(want)] != want {
			t.Fatalf("echo: %q, want %q", in, want)
		}
		in = in[len(want):]
	})
	ws.mu.Lock()
	events := ws.events
	ws.mu.Unlock()
	if events != nil || ws.r != nil {
		t.Fatalf("after a quiet sweep: events %v, reader %v; want neither", events, ws.r)
	}
	// A big message's buffer goes back to the pool at once.
	big := strings.Repeat("x", 4<<10)
	want = string(websocket.AppendFrame(nil, websocket.OpText, true, []byte(big)))
	p.send(string(websocket.AppendMaskedFrame(nil, websocket.OpText, true, []byte(big), mask)))
	h.runUntil("the big echo", func() bool { in += p.read(); return len(in) >= len(want) })
	if in[:len(want)] != want {
		t.Fatalf("big echo: %d bytes, want %d", len(in), len(want))
	}
	waitCallbacksIdle(h, ws)
	if _, pl := spares(ws); pl {
		t.Fatalf("after a %d-byte message: a spare payload buffer kept; want it pooled (over %d bytes)", len(big), wsSparePayloadMax)
	}
	if p.closed() {
		t.Fatal("the connection closed")
	}
}

// The same over an HTTP/2 stream (RFC 8441): the spares are the
// WebSocket's, whatever carries it, and the HTTP/2 driver's sweep gives
// them back too.
func TestWebSocketOverHTTP2QuietGivesSparesBack(t *testing.T) {
	ev := &echoer{}
	cfg := WSConfig{}.WithDefaults()
	h := newHarness(t, Config{H2C: true, H2: http2.Config{EnableConnectProtocol: true}}, func(ex *Exchange) {
		if _, err := ex.UpgradeWebSocket(WSUpgrade{Handler: ev, Config: &cfg}); err != nil {
			ex.Status = 500
		}
	})
	p := h.dialH2(true)
	p.encBuf.Reset()
	for _, f := range [][2]string{{":method", "CONNECT"}, {":protocol", "websocket"}, {":scheme", "http"},
		{":path", "/ws"}, {":authority", "x"}, {"sec-websocket-version", "13"}} {
		_ = p.enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	_ = p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: p.encBuf.Bytes(), EndHeaders: true})
	p.flush()
	var data []byte // the stream's DATA so far
	status := ""
	read := func() {
		for _, f := range p.frames() {
			switch f := f.(type) {
			case *xh2.MetaHeadersFrame:
				status = f.PseudoValue("status")
			case *xh2.DataFrame:
				data = append(data, f.Data()...)
			}
		}
	}
	var ws *WSConn
	h.runUntil("the 200 and OnOpen", func() bool {
		read()
		ev.mu.Lock()
		ws = ev.ws
		ev.mu.Unlock()
		if status == "" || ws == nil {
			return false
		}
		ws.mu.Lock()
		defer ws.mu.Unlock()
		return !ws.running
	})
	if status != "200" {
		t.Fatalf("extended CONNECT: status %q", status)
	}
	if b, pl := spares(ws); b || pl {
		t.Fatalf("after OnOpen: spare batch %v, spare payload %v; want neither", b, pl)
	}
	// Bigger than a batch carries (wsInlinePayload): it takes a payload buffer.
	msg := []byte(strings.Repeat("m", wsInlinePayload+1))
	echo := func(msg []byte) {
		t.Helper()
		want := string(websocket.AppendFrame(nil, websocket.OpText, true, msg))
		_ = p.fr.WriteData(1, false, websocket.AppendMaskedFrame(nil, websocket.OpText, true, msg, [4]byte{1, 2, 3, 4}))
		p.flush()
		h.runUntil("the echo", func() bool { read(); return len(data) >= len(want) })
		if string(data[:len(want)]) != want {
			t.Fatalf("echo: %q, want %q", data, want)
		}
		data = data[len(want):]
	}
	busyThenQuiet(t, h, ws, func() { echo(msg) })
	// A small message travels in its batch over HTTP/2 too: the busy
	// connection keeps the batch and no payload buffer.
	echo([]byte("small"))
	waitCallbacksIdle(h, ws)
	if b, pl := spares(ws); !b || pl {
		t.Fatalf("after a small message: spare batch %v, spare payload %v; want the batch only", b, pl)
	}
}
