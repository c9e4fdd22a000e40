//go:build unix

package engine

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gwist/gwist/websocket"
)

// bigWriter answers a message with a 1 MiB binary message (blocking on the
// writers' cap, on a worker), then "end".
type bigWriter struct{ wsEvents }

func (b *bigWriter) OnMessage(ws *WSConn, op websocket.Opcode, data []byte) {
	if ws.WriteMessage(websocket.OpBinary, bytes.Repeat([]byte("x"), 1<<20)) == nil {
		_ = ws.WriteText("end")
	}
}

// Pings that come while the server's output is backed up (its socket full
// and a message waiting behind it) are not a flood: the pong owed to the
// last of them waits for room, and goes out once the client reads, after
// what was queued before it; the connection stays open.
func TestWebSocketPingWhileBehind(t *testing.T) {
	h, p, _ := upgradedOnWorkers(t, &bigWriter{})
	mask := [4]byte{1, 2, 3, 4}
	p.send(string(websocket.AppendMaskedFrame(nil, websocket.OpText, true, []byte("go"), mask)))
	// Behind: the socket is full and the fake connection holds the rest.
	h.runUntil("the output to back up", func() bool { return p.fc.OutboundBuffered() > 0 })
	for i := range 5 {
		p.send(string(websocket.AppendMaskedFrame(nil, websocket.OpPing, true, []byte{byte('0' + i)}, mask)))
	}
	r := websocket.NewReader(websocket.Config{Client: true, MaxMessage: 2 << 20, MaxFrame: 2 << 20})
	var pong []byte
	pongs, ended := 0, false
	var in []byte
	h.runUntil("the message, \"end\" and the last pong", func() bool {
		in = append(in, p.read()...)
		for len(in) > 0 {
			n := r.Feed(in)
			in = in[n:]
			e, ok := r.Next()
			for ; ok; e, ok = r.Next() {
				switch {
				case e.Kind == websocket.EventPong:
					pong = append(pong[:0], e.Payload...)
					pongs++
				case e.Kind == websocket.EventMessage && string(e.Payload) == "end":
					ended = true
				}
			}
			if n == 0 {
				break
			}
		}
		h.advance(0) // the tick lets the blocked writer go on once there is room
		// "end" may be queued before the pings are read, and so go out
		// before the pong: wait for both.
		return ended && string(pong) == "4"
	})
	if pongs == 0 || pongs > 5 || string(pong) != "4" {
		t.Fatalf("%d pongs, the last %q; want 1 to 5, the last answering the last ping (%q)", pongs, pong, "4")
	}
	if p.closed() || h.srv.PipeStats().PingFloods != 0 {
		t.Fatalf("closed %v, ping floods %d", p.closed(), h.srv.PipeStats().PingFloods)
	}
}

// upgradedOnWorkers starts a harness whose every request upgrades to a
// WebSocket for handler (callbacks on workers, default WSConfig), dials it
// and upgrades; it returns what the peer read after the 101.
func upgradedOnWorkers(t *testing.T, handler WSHandler) (*harness, *peer, string) {
	t.Helper()
	return upgradedWith(t, Config{}, handler, nil)
}

// upgradedWith is upgradedOnWorkers with the server's config, and other,
// which answers the requests it reports it took (nil: none) instead of
// upgrading them.
func upgradedWith(t *testing.T, srvCfg Config, handler WSHandler, other func(*Exchange) bool) (*harness, *peer, string) {
	t.Helper()
	cfg := WSConfig{}.WithDefaults()
	h := newHarness(t, srvCfg, func(ex *Exchange) {
		if other != nil && other(ex) {
			return
		}
		if _, err := ex.UpgradeWebSocket(WSUpgrade{Handler: handler, Config: &cfg}); err != nil {
			ex.Status = 500
		}
	})
	p := h.dial()
	p.send("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n")
	var in string
	h.runUntil("the upgrade", func() bool { in += p.read(); return strings.Contains(in, "\r\n\r\n") })
	if !strings.HasPrefix(in, "HTTP/1.1 101 ") {
		t.Fatalf("upgrade: %q", in)
	}
	return h, p, in[strings.Index(in, "\r\n\r\n")+4:]
}
