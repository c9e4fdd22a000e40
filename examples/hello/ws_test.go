package main

import (
	"context"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/wstest"
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
		c := wstest.Dial(t, addr.String(), "/ws")
		for _, m := range []struct {
			op   websocket.Opcode
			data string
		}{{websocket.OpText, "hello"}, {websocket.OpBinary, "\x00\xff"}} {
			c.SendFrame(m.op, true, []byte(m.data))
			c.ExpectMessage(m.op, m.data)
		}
	}
}
