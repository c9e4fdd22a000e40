package main

import (
	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
)

// wsRoutes mounts GET /ws: a WebSocket that echoes every message back,
// text as text and binary as binary (permessage-deflate when the client
// offers it). No goroutine is held per connection: the echo runs on the
// worker pool (on the event loop with -inline) when a message arrives.
func wsRoutes(app *gwist.App) {
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			_ = ws.WriteMessage(op, data)
		},
		Compression: &websocket.DeflateConfig{ServerNoContextTakeover: true},
	}))
}
