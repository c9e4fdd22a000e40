package gwist_test

import (
	"bufio"
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/websocket"
)

// A WebSocket peer that reads its echoes slowly, through a small receive
// buffer, while it sends 256 KiB messages, gets them at the pace it reads,
// not one message per sweep of the loop (250 ms). Inline, the loop paused
// its read after each message: its view of the callbacks' queue was taken
// before the callback ran (engine/wsevents.go startCallbacks). At one
// message per sweep 32 messages take 8 s; the bound is half that, so the
// test fails on a missing wake-up, not on a slow machine. (A client that
// sends megabytes before it reads anything stalls with any server whose
// buffers are bounded, gorilla/websocket's included: not tested here.)
func TestWebSocketSlowReaderNotPacedBySweep(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		const messages, size = 32, 256 << 10
		_, addr, _ := startWSApp(t, gwist.WSConfig{}, gwist.WithInline(inline))
		tc := testkit.Dial(t, addr, testkit.RecvBuffer(64<<10))
		c, resp := wsHandshake(t, tc, addr, "/ws")
		if resp.StatusCode != 101 {
			t.Fatalf("handshake: %d", resp.StatusCode)
		}
		c.BR = bufio.NewReaderSize(slowReader{c.BR}, 16<<10)
		msg := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, size) }
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			for i := range messages {
				c.SendFrame(websocket.OpBinary, true, msg(i))
			}
		}()
		start := time.Now()
		_ = tc.SetReadDeadline(start.Add(20 * time.Second))
		for i := range messages {
			ev, err := c.Next()
			if err != nil {
				t.Fatalf("echo %d of %d: %v after %v", i, messages, err, time.Since(start))
			}
			if ev.Kind != websocket.EventMessage || !bytes.Equal(ev.Payload, msg(i)) {
				t.Fatalf("echo %d: %v, %d bytes", i, ev.Kind, len(ev.Payload))
			}
		}
		took := time.Since(start)
		<-sent
		t.Logf("%d echoes of %d KiB in %v", messages, size>>10, took)
		if limit := messages * 250 * time.Millisecond / 2; took > limit {
			t.Fatalf("%d echoes took %v (over %v): paced by the sweep, not by the reader", messages, took, limit)
		}
	})
}

// slowReader reads at most 16 KiB at a time, a millisecond apart: about
// 15 MB/s, with the socket's receive buffer full in between.
type slowReader struct{ r io.Reader }

func (s slowReader) Read(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	return s.r.Read(p[:min(len(p), 16<<10)])
}
