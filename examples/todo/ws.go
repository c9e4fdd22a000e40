package main

import "github.com/gwist/gwist"

// wsHandler is GET /ws: a WebSocket that receives every change as a JSON
// text message ({"op": ..., "todo": {...}}, as the SSE feed's data). The
// page sends nothing; a socket joins the hub when it opens and leaves it
// by itself when it closes. A socket too far behind is closed with 1008
// by the hub; its page reconnects and reloads the list. Same-origin only
// (gwist's default origin check).
func (h *hub) wsHandler() *gwist.WSHandler {
	return &gwist.WSHandler{
		OnOpen: func(ws *gwist.WSConn) { h.ws.Add(ws) },
	}
}
