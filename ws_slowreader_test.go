package gwist_test

import (
	"bufio"
	"bytes"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/websocket"
)

// A WebSocket peer that reads its echoes slowly, through a small receive
// buffer, while it sends 256 KiB messages (or that starts reading only
// once the server's output is full), gets them at the pace it reads, not
// one message per sweep of the loop (250 ms). Inline, the loop paused its
// read after each message: its view of the callbacks' queue was taken
// before the callback ran (engine/wsevents.go startCallbacks). At one
// message per sweep 32 messages take 8 s; the bound is half that, so the
// test fails on a missing wake-up, not on a slow machine. (A client that
// sends megabytes before it reads anything stalls with any server whose
// buffers are bounded, gorilla/websocket's included: not tested here.)
func TestWebSocketSlowReaderNotPacedBySweep(t *testing.T) {
	for _, late := range []bool{false, true} {
		name := map[bool]string{false: "reading-while-sending", true: "reading-late"}[late]
		t.Run(name, func(t *testing.T) {
			forBothModes(t, func(t *testing.T, inline bool) { slowReaderEchoes(t, inline, late) })
		})
	}
}

// slowReaderEchoes sends 32 messages of 256 KiB to an echo route and reads
// the echoes slowly, from the start or (late) only after 300 ms, when the
// server's output is full and its read paused; every echo must come back
// whole and in order, and no reply may fail to be queued (an Inline
// callback's WriteMessage fails where a worker's would wait).
func slowReaderEchoes(t *testing.T, inline, late bool) {
	const messages = 32
	var mu sync.Mutex
	var writeErrs []error
	app := gwist.New(gwist.WithLogger(discardLogger()), gwist.WithInline(inline))
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
		if err := ws.WriteMessage(op, data); err != nil {
			mu.Lock()
			writeErrs = append(writeErrs, err)
			mu.Unlock()
		}
	}}))
	addr := startApp(t, app)
	tc := testkit.Dial(t, addr, testkit.RecvBuffer(64<<10))
	c, resp := wsHandshake(t, tc, addr, "/ws")
	if resp.StatusCode != 101 {
		t.Fatalf("handshake: %d", resp.StatusCode)
	}
	c.BR = bufio.NewReaderSize(slowReader{c.BR}, 16<<10)
	msg := echoPayload
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for i := range messages {
			c.SendFrame(websocket.OpBinary, true, msg(i))
		}
	}()
	if late {
		time.Sleep(300 * time.Millisecond)
	}
	start := time.Now()
	_ = tc.SetDeadline(start.Add(20 * time.Second))
	for i := range messages {
		ev, err := c.Next()
		if err != nil {
			t.Fatalf("echo %d of %d: %v after %v (server's write errors: %v)", i, messages, err, time.Since(start), writeErrs)
		}
		if ev.Kind != websocket.EventMessage || !bytes.Equal(ev.Payload, msg(i)) {
			t.Fatalf("echo %d: %v, %d bytes starting %q (server's write errors: %v)", i, ev.Kind, len(ev.Payload), ev.Payload[:min(1, len(ev.Payload))], writeErrs)
		}
	}
	took := time.Since(start)
	<-sent
	notPacedBySweep(t, messages, took)
	mu.Lock()
	defer mu.Unlock()
	if len(writeErrs) > 0 {
		t.Fatalf("the server's replies failed: %v", writeErrs)
	}
}

// echoPayload is message i of these tests: 256 KiB of one letter.
func echoPayload(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, 256<<10) }

// notPacedBySweep fails if n echoes took half as long as one per sweep
// (250 ms) would.
func notPacedBySweep(t *testing.T, n int, took time.Duration) {
	t.Helper()
	t.Logf("%d echoes of 256 KiB in %v", n, took)
	if limit := time.Duration(n) * 250 * time.Millisecond / 2; took > limit {
		t.Fatalf("%d echoes took %v (over %v): paced by the sweep, not by the reader", n, took, limit)
	}
}

// slowReader reads at most 16 KiB at a time, a millisecond apart: about
// 15 MB/s, with the socket's receive buffer full in between.
type slowReader struct{ r io.Reader }

func (s slowReader) Read(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	return s.r.Read(p[:min(len(p), 16<<10)])
}

// The same over HTTP/2 (RFC 8441, h2c): the stream's flow control, not a
// socket's receive buffer, paces the echoes; the client grants its window
// back only as it reads, slowly. A read paused for the stream's output
// goes on when the peer's WINDOW_UPDATE lets that output go (before, at
// the sweep: 7.7 s inline, 2.8 s on workers), and an Inline server gets a
// message only once the earlier output has gone, so no echo fails for
// want of room (its WriteMessage cannot wait: ErrSlowClient; the echo
// route ignores it, and the echo is missing).
func TestWebSocketHTTP2SlowReaderNotPacedBySweep(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		const messages = 32
		_, addr, _ := startWSApp(t, gwist.WSConfig{}, gwist.WithInline(inline), gwist.WithHTTP2(true))
		c := dialH2WS(t, addr, false, "/ws")
		if c.status != "200" {
			t.Fatalf("extended CONNECT: %s", c.status)
		}
		c.sendConcurrently()
		msg := echoPayload
		sent := make(chan struct{})
		go func() {
			defer close(sent)
			for i := range messages {
				c.send(websocket.OpBinary, msg(i))
			}
		}()
		start := time.Now()
		_ = c.conn.SetDeadline(start.Add(20 * time.Second))
		c.readDelay = time.Millisecond // a slow reader: a frame (16 KiB at most) a millisecond
		for i := range messages {
			ev := c.next()
			if ev.Kind != websocket.EventMessage || !bytes.Equal(ev.Payload, msg(i)) {
				at := 0
				for at < len(ev.Payload) && ev.Payload[at] == msg(i)[0] {
					at++
				}
				t.Fatalf("echo %d: %v, %d bytes, want %q throughout, byte %d is %q", i, ev.Kind, len(ev.Payload), msg(i)[0], at, ev.Payload[min(at, len(ev.Payload)-1)])
			}
		}
		took := time.Since(start)
		<-sent
		notPacedBySweep(t, messages, took)
	})
}
