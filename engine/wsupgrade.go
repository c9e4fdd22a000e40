//go:build unix

package engine

import (
	"errors"
	"strings"

	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/websocket"
)

// The HTTP/1.1 upgrade to WebSocket (RFC 6455 section 4). The handshake's
// checks are the layer above's (the root package's Ctx.WebSocket); the
// engine turns an accepted one into a 101 and swaps the connection's
// driver once the handler has returned, on the loop, like the h2c upgrade
// (h2upgrade.go). A request that asks for an upgrade stops the parsing of
// what follows it until its handler has answered, so bytes the client sent
// after the handshake (frames, if it did not wait) go to the WebSocket
// driver, not to the HTTP/1 parser.

// errUpgrade: the exchange cannot become a WebSocket (HTTP/2 without
// extended CONNECT, a response already streaming, a streamed request body,
// an exchange outside the engine).
var errUpgrade = errors.New("gwist: this exchange cannot be upgraded to a WebSocket")

// WSUpgrade is what the handshake agreed on.
type WSUpgrade struct {
	Handler WSHandler
	Config  *WSConfig // defaults applied (WSConfig.WithDefaults)
	// Subprotocol is the one selected ("" for none); Deflate the
	// permessage-deflate parameters, nil for none. The response header
	// fields that announce them are the caller's to set.
	Subprotocol string
	Deflate     *websocket.DeflateParams
	// Owner is the layer above's object for the connection (WSConn.Owner).
	Owner any
	// Conn, if set, is a zero WSConn for the connection, allocated by the
	// layer above (inside Owner, so that a callback finds both on the
	// same lines); nil: the engine allocates one. One upgrade per Conn.
	Conn *WSConn
}

// errUpgradeArgs: UpgradeWebSocket without a handler or a config.
var errUpgradeArgs = errors.New("gwist: UpgradeWebSocket needs a handler and a config")

// upgradeWS makes the connection a WebSocket once the batch's handlers
// have returned (adoptUpgrade): the request must be the batch's last and
// the response must not have begun.
func (w *h1Worker) upgradeWS(ex *Exchange, up WSUpgrade) (*WSConn, error) {
	b := w.b
	if w.st != nil || b.exs[len(b.exs)-1] != ex || ex.Request.ProtoMinor != 1 {
		return nil, errUpgrade
	}
	return newWSConn(b.c, up), nil
}

func newWSConn(c *conn, up WSUpgrade) *WSConn {
	ws := up.alloc()
	ws.c, ws.fd, ws.directWrites = c, c.fd, &c.srv.pipe.wsDirect
	return ws
}

// alloc returns the upgrade's WSConn (Conn, or a new one) with what the
// handshake agreed on.
func (up *WSUpgrade) alloc() *WSConn {
	ws := up.Conn
	if ws == nil {
		ws = new(WSConn)
	}
	*ws = WSConn{Owner: up.Owner, cfg: up.Config, h: up.Handler, subp: up.Subprotocol, deflate: up.Deflate}
	if up.Deflate != nil {
		ws.deflater = websocket.NewDeflater(*up.Deflate, false)
	}
	return ws
}

// wantsWebSocket: req, whose Upgrade field is upgrade, asks for an upgrade
// to WebSocket (parsing stops behind it until it is answered).
func wantsWebSocket(req *http1.Request, upgrade string) bool {
	return req.Method == "GET" && hasToken(upgrade, "websocket")
}

// appendSwitching serializes the 101 with the handler's header fields.
func appendSwitching(dst []byte, h *http1.Header) []byte {
	dst = append(dst, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"...)
	for _, f := range h.Fields() {
		switch strings.ToLower(f.Name) {
		case "upgrade", "connection", "content-length", "transfer-encoding", "date":
			continue
		}
		dst = append(dst, f.Name...)
		dst = append(dst, ": "...)
		dst = append(dst, f.Value...)
		dst = append(dst, "\r\n"...)
	}
	return append(dst, "\r\n"...)
}

// adoptUpgrade runs on the loop when the batch of an upgraded exchange
// comes back: its 101 is written and the connection becomes a WebSocket.
func (d *h1Driver) adoptUpgrade(b *batch) {
	c := d.c
	ws := b.upgrade
	b.upgrade = nil
	b.done = true
	if c.closed {
		d.releaseFinished()
		return
	}
	c.beginLoopTask()
	d.collect() // the 101 (and what was ahead of it) into c.out
	if c.closed || c.readingStopped() || d.head != nil {
		c.finishCallback()
		return
	}
	c.switchToWS(ws)
	c.resume() // what the client sent after the handshake
	c.finishCallback()
}

// upgradeInline switches to WebSocket after an Inline handler upgraded ex.
// Loop only.
func (d *h1Driver) upgradeInline(ex *Exchange) {
	c := d.c
	ws := ex.ws
	c.out = appendSwitching(c.out, &ex.Header)
	putExchange(ex)
	d.inflight--
	c.switchToWS(ws)
}
