//go:build unix

package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/websocket"
)

// A message of up to wsInlinePayload bytes travels to the worker in its
// batch (batch.evSmall), so a run of them leaves no payload buffer behind;
// one byte more takes a payload buffer as before. Both echo intact.
func TestWebSocketSmallMessageTravelsInBatch(t *testing.T) {
	ev := &echoer{}
	h, p, in := upgradedOnWorkers(t, ev)
	ws := openedWS(h, ev)
	mask := [4]byte{5, 6, 7, 8}
	echo := func(msg string) {
		t.Helper()
		want := string(websocket.AppendFrame(nil, websocket.OpBinary, true, []byte(msg)))
		p.send(string(websocket.AppendMaskedFrame(nil, websocket.OpBinary, true, []byte(msg), mask)))
		h.runUntil("the echo", func() bool { in += p.read(); return len(in) >= len(want) })
		if in[:len(want)] != want {
			t.Fatalf("echo of %d bytes: %q, want %q", len(msg), in, want)
		}
		in = in[len(want):]
		waitCallbacksIdle(h, ws)
	}
	for i := range 3 {
		echo(strings.Repeat(string(rune('a'+i)), wsInlinePayload))
	}
	if b, pl := spares(ws); !b || pl {
		t.Fatalf("after three %d-byte messages: spare batch %v, spare payload %v; want the batch only", wsInlinePayload, b, pl)
	}
	echo(strings.Repeat("z", wsInlinePayload+1))
	if _, pl := spares(ws); !pl {
		t.Fatalf("after a %d-byte message: no spare payload buffer; want one (it did not fit the batch)", wsInlinePayload+1)
	}
}

// When the pool is full, a small message that was to travel in its batch
// waits in the callbacks' queue instead, in a buffer of its own: the batch
// goes back to its pool (where a gwistcheck build wipes it) and the
// sweep's retry delivers the message intact.
func TestWebSocketSmallMessageWaitsForFullPool(t *testing.T) {
	w, err := NewWorkers(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Release(time.Second) })
	ev := &echoer{}
	blocked, unblock := make(chan struct{}), make(chan struct{})
	h, p, in := upgradedWith(t, Config{Workers: w}, ev, func(ex *Exchange) bool {
		if ex.Request.Path != "/block" {
			return false
		}
		close(blocked)
		<-unblock
		return true
	})
	ws := openedWS(h, ev)

	other := h.dial()
	other.send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
	<-blocked // the pool's one worker is taken
	msg := "small, and queued while the pool is full"
	p.send(string(websocket.AppendMaskedFrame(nil, websocket.OpText, true, []byte(msg), [4]byte{9, 8, 7, 6})))
	ws.mu.Lock()
	retry, queued := ws.retrySubm, ws.events.len()
	ws.mu.Unlock()
	if !retry || queued != 1 {
		t.Fatalf("with the pool full: retry %v, %d events queued; want a retry and the message queued", retry, queued)
	}
	close(unblock)
	want := string(websocket.AppendFrame(nil, websocket.OpText, true, []byte(msg)))
	h.runUntil("the blocking handler to finish", func() bool { return w.Running() == 0 })
	h.advance(time.Second) // the sweep submits the queue again
	h.runUntil("the echo", func() bool { in += p.read(); return len(in) >= len(want) })
	if in[:len(want)] != want {
		t.Fatalf("echo after the pool freed: %q, want %q", in, want)
	}
}

// openedWS runs the harness until ev's OnOpen has run and returned.
func openedWS(h *harness, ev *echoer) *WSConn {
	h.t.Helper()
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
	return ws
}
