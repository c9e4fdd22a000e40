package main

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
)

// GET /ws echoes text and binary messages, on the worker pool and inline.
func TestWebSocketEcho(t *testing.T) {
	for _, inline := range []bool{false, true} {
		app := gwist.New(gwist.WithInline(inline))
		wsRoutes(app)
		addr, err := app.Start("127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = app.Shutdown(ctx)
		})
		conn, err := net.Dial("tcp", addr.String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		key := "dGhlIHNhbXBsZSBub25jZQ=="
		_, _ = conn.Write([]byte("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n\r\n"))
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 101 || resp.Header.Get("Sec-WebSocket-Accept") != websocket.AcceptKey(key) {
			t.Fatalf("handshake: %v %v", resp, err)
		}
		r := websocket.NewReader(websocket.Config{Client: true})
		mask := [4]byte{1, 2, 3, 4}
		for _, m := range []struct {
			op   websocket.Opcode
			data string
		}{{websocket.OpText, "hello"}, {websocket.OpBinary, "\x00\xff"}} {
			_, _ = conn.Write(websocket.AppendMaskedFrame(nil, m.op, true, []byte(m.data), mask))
			var buf []byte
			for {
				if ev, ok := r.Next(); ok {
					if ev.Kind != websocket.EventMessage || ev.Opcode != m.op || string(ev.Payload) != m.data {
						t.Fatalf("inline=%v: got %v %v %q", inline, ev.Kind, ev.Opcode, ev.Payload)
					}
					break
				}
				if len(buf) > 0 {
					n := r.Feed(buf)
					buf = buf[n:]
					if n > 0 {
						continue
					}
				}
				b := make([]byte, 4096)
				n, err := br.Read(b)
				if err != nil {
					t.Fatal(err)
				}
				buf = append(buf, b[:n]...)
			}
		}
	}
}
