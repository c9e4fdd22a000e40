package main

import (
	"net"
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/internal/wstest"
	"github.com/gwist/gwist/websocket"
)

// GET /ws echoes text and binary messages, on the worker pool and inline.
func TestWebSocketEcho(t *testing.T) {
	for _, inline := range []bool{false, true} {
		app := gwist.New(gwist.WithInline(inline))
		wsRoutes(app)
		addr := testkit.Serve(t, func() (net.Addr, error) { return app.Start("127.0.0.1:0") }, app.Shutdown)
		c := wstest.Dial(t, addr, "/ws")
		for _, m := range []struct {
			op   websocket.Opcode
			data string
		}{{websocket.OpText, "hello"}, {websocket.OpBinary, "\x00\xff"}} {
			c.SendFrame(m.op, true, []byte(m.data))
			c.ExpectMessage(m.op, m.data)
		}
	}
}
