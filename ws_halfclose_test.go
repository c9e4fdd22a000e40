package gwist_test

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/websocket"
)

// A WebSocket peer that sends messages and then shuts its write side (a
// FIN, no close frame) gets the echo of every one of them, as from a
// gorilla/websocket echo loop, which reads each message sent before the
// FIN and writes it back before it sees the EOF (benchmarks/cmd/
// wshalfclose measures both). The client reads slowly through a small
// receive buffer, so echoes still wait, in gnet's buffer or with the
// callbacks, when the FIN is there. The handler's OnClose still sees
// 1006: the peer sent no close frame.
func TestWebSocketHalfCloseGetsEchoes(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		_, addr, rec := startWSApp(t, gwist.WSConfig{}, gwist.WithInline(inline))
		const tries, messages = 3, 16
		for try := range tries {
			tc := testkit.Dial(t, addr, testkit.RecvBuffer(64<<10))
			c, resp := wsHandshake(t, tc, addr, "/ws")
			if resp.StatusCode != 101 {
				t.Fatalf("handshake: %d", resp.StatusCode)
			}
			msgs := make([][]byte, messages)
			for i := range msgs {
				msgs[i] = bytes.Repeat([]byte{byte('a' + i)}, 256<<10)
				c.SendFrame(websocket.OpBinary, true, msgs[i])
			}
			if err := tc.CloseWrite(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond) // the FIN is there before the echoes are read
			for i, want := range msgs {
				ev, err := c.Next()
				if err != nil {
					t.Fatalf("try %d: echo %d of %d: %v", try, i, messages, err)
				}
				if ev.Kind != websocket.EventMessage || !bytes.Equal(ev.Payload, want) {
					t.Fatalf("try %d: echo %d: %v, %d bytes", try, i, ev.Kind, len(ev.Payload))
				}
				time.Sleep(time.Millisecond) // a slow reader
			}
			// Then at most a close frame, and the end of the connection.
			_ = tc.SetReadDeadline(time.Now().Add(5 * time.Second))
			if ev, err := c.Next(); err == nil && ev.Kind != websocket.EventClose {
				t.Fatalf("try %d: after the echoes: %v", try, ev.Kind)
			} else if err == nil {
				if rest, err := io.ReadAll(c.BR); len(rest) > 0 || err != nil {
					t.Fatalf("try %d: after the close frame: %d bytes, %v", try, len(rest), err)
				}
			}
		}
		waitFor(t, 5*time.Second, "every OnClose", func() bool { return len(rec.closed()) == tries })
		for _, code := range rec.closed() {
			if code != websocket.CloseAbnormal {
				t.Fatalf("OnClose codes %v, want %d each", rec.closed(), websocket.CloseAbnormal)
			}
		}
	})
}
