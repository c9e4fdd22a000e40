//go:build unix

package engine

import (
	"strings"
	"sync"
	"testing"
	"time"

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

// A busy WebSocket keeps its batch and a payload buffer between messages
// (wsevents.go), and gives them back, with the rest of its per-message
// state, at the first sweep that finds it quiet; a connection that only
// opened keeps none: an idle connection holds none of them.
func TestWebSocketQuietGivesSparesBack(t *testing.T) {
	ev := &echoer{}
	h, p, in := upgradedOnWorkers(t, ev)
	var ws *WSConn
	h.runUntil("OnOpen to run", func() bool {
		ev.mu.Lock()
		ws = ev.ws
		ev.mu.Unlock()
		if ws == nil {
			return false
		}
		ws.mu.Lock()
		defer ws.mu.Unlock()
		return !ws.running
	})
	spares := func() (batch, payload bool) {
		ws.mu.Lock()
		defer ws.mu.Unlock()
		return ws.spareBatch != nil, ws.spare != nil || ws.loopSpare != nil
	}
	// A connection that only opened is not busy: an idle one keeps nothing.
	if b, pl := spares(); b || pl {
		t.Fatalf("after OnOpen: spare batch %v, spare payload %v; want neither", b, pl)
	}
	mask := [4]byte{1, 2, 3, 4}
	want := string(websocket.AppendFrame(nil, websocket.OpText, true, []byte("hi")))
	for i := range 3 {
		p.send(string(websocket.AppendMaskedFrame(nil, websocket.OpText, true, []byte("hi"), mask)))
		h.runUntil("the echo", func() bool { in += p.read(); return len(in) >= len(want) })
		if in[:len(want)] != want {
			t.Fatalf("echo %d: %q, want %q", i, in, want)
		}
		in = in[len(want):]
	}
	h.runUntil("the worker to finish", func() bool {
		ws.mu.Lock()
		defer ws.mu.Unlock()
		return !ws.running
	})
	if b, pl := spares(); !b || !pl {
		t.Fatalf("after three echoes: spare batch %v, spare payload %v; want both kept", b, pl)
	}
	h.advance(time.Second) // the sweep
	if b, pl := spares(); b || pl {
		t.Fatalf("after a quiet sweep: spare batch %v, spare payload %v; want both given back", b, pl)
	}
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
	h.runUntil("the worker to finish", func() bool {
		ws.mu.Lock()
		defer ws.mu.Unlock()
		return !ws.running
	})
	if _, pl := spares(); pl {
		t.Fatalf("after a %d-byte message: a spare payload buffer kept; want it pooled (over %d bytes)", len(big), wsSparePayloadMax)
	}
	if p.closed() {
		t.Fatal("the connection closed")
	}
}
