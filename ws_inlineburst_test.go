package gwist_test

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/internal/wstest"
	"github.com/gwist/gwist/websocket"
)

// A peer that sends many messages at once, read by the server together,
// gets every echo, and the server's WriteMessage never fails, though the
// echoes of one read add up to several times WSConfig.MaxQueued. An
// Inline callback cannot wait for room: before the fix, the replies to
// the messages before it still sat in the writers' queue, and the next
// reply that did not fit under the cap beside them failed with
// ErrSlowClient and was lost (the echo route drops the error). The
// messages alternate 7 and 10 KiB under a 16 KiB cap, so that a 10 KiB
// reply meets a 7 KiB one still queued (below the half of the cap at
// which any server writes its queue out). Over HTTP/1 and over HTTP/2
// (h2c, RFC 8441), inline and on workers.
func TestWebSocketBurstRepliesNotRefused(t *testing.T) {
	const messages = 24
	msg := func(i int) []byte {
		return bytes.Repeat([]byte{byte('a' + i%26)}, []int{7 << 10, 10 << 10}[i%2])
	}
	forBothModes(t, func(t *testing.T, inline bool) {
		var mu sync.Mutex
		var writeErrs []error
		failures := func() string {
			mu.Lock()
			defer mu.Unlock()
			return fmt.Sprint(writeErrs)
		}
		app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()), gwist.WithInline(inline))
		app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{Config: gwist.WSConfig{MaxQueued: 16 << 10},
			OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
				if err := ws.WriteMessage(op, data); err != nil {
					mu.Lock()
					writeErrs = append(writeErrs, err)
					mu.Unlock()
				}
			}}))
		addr := startApp(t, app)
		check := func(t *testing.T, i int, ev websocket.Event) {
			t.Helper()
			if ev.Kind != websocket.EventMessage || !bytes.Equal(ev.Payload, msg(i)) {
				t.Fatalf("echo %d: %v, %d bytes starting %q (server's write errors: %s)",
					i, ev.Kind, len(ev.Payload), ev.Payload[:min(1, len(ev.Payload))], failures())
			}
		}
		t.Run("http1", func(t *testing.T) {
			tc := testkit.Dial(t, addr)
			c, resp := wsHandshake(t, tc, addr, "/ws")
			if resp.StatusCode != 101 {
				t.Fatalf("handshake: %d", resp.StatusCode)
			}
			var burst []byte
			for i := range messages {
				burst = websocket.AppendMaskedFrame(burst, websocket.OpBinary, true, msg(i), testMask)
			}
			_ = tc.SetDeadline(time.Now().Add(10 * time.Second))
			if _, err := tc.Write(burst); err != nil { // one write: the server reads 64 KiB at a time
				t.Fatal(err)
			}
			for i := range messages {
				ev, err := c.Next()
				if err != nil {
					t.Fatalf("echo %d: %v (server's write errors: %s)", i, err, failures())
				}
				check(t, i, ev)
			}
		})
		t.Run("h2c", func(t *testing.T) {
			c := dialH2WS(t, addr, false, "/ws")
			if c.status != "200" {
				t.Fatalf(":status %q", c.status)
			}
			for i := range messages {
				c.send(websocket.OpBinary, msg(i))
			}
			for i := range messages {
				check(t, i, c.next())
			}
		})
		if f := failures(); f != "[]" {
			t.Fatalf("the server's WriteMessage failed: %s", f)
		}
	})
}

// Only the loop makes room for an Inline callback's reply by writing the
// queue out: a goroutine of the application that writes while the
// callback runs, and finds no room, gets ErrSlowClient as before (it must
// not write on the loop's behalf: in a gwistcheck build that panics, and
// -race sees it). The callback waits for that write on purpose.
func TestWebSocketInlineRoomOnlyOnTheLoop(t *testing.T) {
	other := make(chan error, 1)
	app := gwist.New(gwist.WithLogger(discardLogger()), gwist.WithInline(true))
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{Config: gwist.WSConfig{MaxQueued: 16 << 10},
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			if string(data) != "go" {
				_ = ws.WriteMessage(op, data)
				return
			}
			reply := bytes.Repeat([]byte("r"), 10<<10)
			if err := ws.WriteMessage(websocket.OpBinary, reply); err != nil {
				other <- fmt.Errorf("the callback's own reply: %w", err)
				return
			}
			done := make(chan error, 1)
			go func() { done <- ws.WriteMessage(websocket.OpBinary, reply) }()
			select {
			case err := <-done:
				other <- err
			case <-time.After(5 * time.Second):
				other <- fmt.Errorf("the other goroutine's write did not return")
			}
		}}))
	addr := startApp(t, app)
	tc := testkit.Dial(t, addr)
	c, resp := wsHandshake(t, tc, addr, "/ws")
	if resp.StatusCode != 101 {
		t.Fatalf("handshake: %d", resp.StatusCode)
	}
	_ = tc.SetDeadline(time.Now().Add(10 * time.Second))
	c.SendFrame(websocket.OpText, true, []byte("go"))
	if err := <-other; err != gwist.ErrSlowClient {
		t.Fatalf("the other goroutine's write: %v, want ErrSlowClient", err)
	}
	c.ExpectMessage(websocket.OpBinary, string(bytes.Repeat([]byte("r"), 10<<10)))
	c.SendFrame(websocket.OpText, true, []byte("still here"))
	c.ExpectMessage(websocket.OpText, "still here")
}

// The same with the default MaxQueued (256 KiB) and small requests whose
// replies are large (a client asking for chunks of 100 and 200 KiB, eight
// requests in one write): one read holds all eight, and their 1.2 MB of
// replies must all arrive. Before the fix the second reply failed on an
// Inline server: the first (under half the cap, so not yet written out)
// and it did not fit under the cap together. Over plaintext and TLS (the
// loop's write encrypts).
func TestWebSocketLargeRepliesToRequestsInOneRead(t *testing.T) {
	const requests = 8
	reply := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i)}, []int{100 << 10, 200 << 10}[i%2]) }
	forBothModes(t, func(t *testing.T, inline bool) {
		failed := make(chan error, 2*requests)
		app := gwist.New(gwist.WithLogger(discardLogger()), gwist.WithInline(inline))
		app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{OnMessage: func(ws *gwist.WSConn, _ gwist.Opcode, data []byte) {
			if err := ws.WriteMessage(websocket.OpBinary, reply(int(data[0]-'0'))); err != nil {
				failed <- err
			}
		}}))
		plain, secure := startApp(t, app), startTLS(t, app, serverTLSConfig(t))
		for _, useTLS := range []bool{false, true} {
			var c *wstest.Client
			if useTLS {
				c = dialWSS(t, secure, "/ws", &tls.Config{RootCAs: getPKI(t).pool, ServerName: "localhost"})
			} else {
				c = dialWS(t, plain, "/ws")
			}
			var burst []byte
			for i := range requests {
				burst = websocket.AppendMaskedFrame(burst, websocket.OpText, true, []byte{byte('0' + i)}, testMask)
			}
			c.SendRaw(burst) // one write: the server reads it at once
			for i := range requests {
				ev, err := c.Next()
				if err != nil {
					t.Fatalf("TLS %v, reply %d: %v", useTLS, i, err)
				}
				if !bytes.Equal(ev.Payload, reply(i)) {
					select {
					case err := <-failed:
						t.Fatalf("TLS %v, reply %d: %d bytes starting %q; the server's WriteMessage failed: %v", useTLS, i, len(ev.Payload), ev.Payload[:min(1, len(ev.Payload))], err)
					default:
						t.Fatalf("TLS %v, reply %d: %d bytes starting %q", useTLS, i, len(ev.Payload), ev.Payload[:min(1, len(ev.Payload))])
					}
				}
			}
		}
		select {
		case err := <-failed:
			t.Fatalf("the server's WriteMessage failed: %v", err)
		default:
		}
	})
}
