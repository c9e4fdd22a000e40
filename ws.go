package gwist

import (
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/websocket"
)

// WebSocket (RFC 6455, and RFC 8441 over HTTP/2) without a goroutine per
// connection: the handshake runs in a handler like any request, then the
// connection's events go to the WSHandler's callbacks on the worker pool,
// one at a time per connection and in order.

// Opcode and CloseCode are the websocket package's.
type (
	Opcode    = websocket.Opcode
	CloseCode = websocket.CloseCode
)

// Message types for WriteMessage and OnMessage.
const (
	TextMessage   = websocket.OpText
	BinaryMessage = websocket.OpBinary
)

// WSHandler is a WebSocket endpoint: its callbacks and its handshake
// options. Use it through WebSocket (a route handler) or Ctx.WebSocket;
// do not copy it after first use. Every callback is optional.
type WSHandler struct {
	// OnOpen runs first, once the connection is a WebSocket.
	OnOpen func(ws *WSConn)
	// OnMessage runs for every complete message, TextMessage (valid
	// UTF-8) or BinaryMessage. data is valid only until it returns.
	OnMessage func(ws *WSConn, op Opcode, data []byte)
	// OnClose runs last, once: the peer's close code and reason, the code
	// the server closed with for a protocol violation, or 1006
	// (websocket.CloseAbnormal) when the connection ended without a close
	// handshake.
	OnClose func(ws *WSConn, code CloseCode, reason string)

	// Subprotocols the endpoint speaks, in order of preference; the first
	// one the client offers is selected (WSConn.Subprotocol). When the
	// client offers only others, the handshake goes on without one.
	Subprotocols []string
	// CheckOrigin decides whether a browser's request from another origin
	// may connect (false: 403). Nil allows requests without an Origin
	// header (not from a browser) and requests whose Origin's host is the
	// request's Host: a page of another site cannot open a WebSocket with
	// the user's cookies (cross-site WebSocket hijacking).
	CheckOrigin func(c *Ctx) bool
	// Compression, when set, accepts permessage-deflate (RFC 7692) when
	// the client offers it. Compression costs memory per connection with
	// context takeover (see websocket.Deflater); set
	// ServerNoContextTakeover to pool the compressor between messages.
	Compression *websocket.DeflateConfig
	// Config holds the limits and timers (zero fields: defaults).
	Config WSConfig

	once    sync.Once
	cfg     engine.WSConfig
	adapter wsAdapter
}

// WebSocket returns a handler that answers the WebSocket handshake with h
// (see Ctx.WebSocket): app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{...})).
// With HTTP/2 on, an App with such a route accepts WebSocket over HTTP/2
// too (RFC 8441).
//
//go:noinline
func WebSocket(h *WSHandler) HandlerFunc {
	h.prepare()
	return (&wsRoute{h}).serve
}

func (h *WSHandler) prepare() {
	h.once.Do(func() { h.cfg, h.adapter = h.Config.withDefaults(), wsAdapter{h} })
}

// WebSocket answers the WebSocket opening handshake (RFC 6455 section 4.2)
// and, when it is valid, switches the connection to WebSocket once the
// handler returns; h's callbacks then get its events. The handler must not
// write a response after it. A request that is not a valid handshake is
// answered here and the connection stays HTTP: 405 for a method other than
// GET, 426 (with Upgrade: websocket) for a request that does not ask for
// an upgrade, 426 with Sec-WebSocket-Version: 13 for another version, 400
// for a missing or malformed Sec-WebSocket-Key (or a request with a body),
// 403 from the origin check. Over HTTP/2 it answers an extended CONNECT
// (RFC 8441) the same way. Under App.ServeHTTP (httptest.NewServer, a
// net/http server) it works on HTTP/1.1 connections that net/http can hand
// over (http.Hijacker): the connection then runs on goroutines of its own
// (two), with the same callbacks, limits and hub; elsewhere it answers 501.
func (c *Ctx) WebSocket(h *WSHandler) error {
	h.prepare()
	req := &c.ex.Request
	var rs *responseSink // under ServeHTTP: the connection is taken from net/http (ws_nethttp.go)
	if c.ex.HasSink() {
		if rs = c.hijackableSink(); rs == nil {
			return c.String(http.StatusNotImplemented, "WebSocket needs gwist's own listener or an HTTP/1.1 connection that net/http can hand over (Hijack)\n")
		}
	}
	h2 := c.ex.IsHTTP2()
	switch {
	case h2 && req.Method != http.MethodConnect:
		c.SetHeader("Allow", "CONNECT")
		return c.String(http.StatusMethodNotAllowed, "Method Not Allowed\n")
	case h2:
		if !strings.EqualFold(c.ex.Protocol(), "websocket") {
			return c.String(http.StatusBadRequest, "extended CONNECT with :protocol websocket expected\n")
		}
	case req.Method != http.MethodGet:
		c.SetHeader("Allow", "GET")
		return c.String(http.StatusMethodNotAllowed, "Method Not Allowed\n")
	case !headerHasToken(req, "Connection", "upgrade") || !headerHasToken(req, "Upgrade", "websocket"):
		c.SetHeader("Upgrade", "websocket").SetHeader("Connection", "Upgrade")
		return c.String(http.StatusUpgradeRequired, "WebSocket upgrade expected\n")
	case req.ProtoMinor != 1:
		return c.String(http.StatusBadRequest, "WebSocket needs HTTP/1.1\n")
	}
	if req.Header("Sec-WebSocket-Version") != "13" {
		c.SetHeader("Sec-WebSocket-Version", "13")
		return c.String(http.StatusUpgradeRequired, "unsupported Sec-WebSocket-Version\n")
	}
	key := req.Header("Sec-WebSocket-Key")
	if !h2 && !websocket.ValidClientKey(key) {
		return c.String(http.StatusBadRequest, "missing or invalid Sec-WebSocket-Key\n")
	}
	if !h2 && (req.ContentLength != 0 || req.Chunked) {
		return c.String(http.StatusBadRequest, "a WebSocket handshake has no body\n")
	}
	if check := h.CheckOrigin; check != nil && !check(c) || check == nil && !sameOrigin(req) {
		return c.String(http.StatusForbidden, "origin not allowed\n")
	}
	owner := new(WSConn)
	up := engine.WSUpgrade{Handler: &h.adapter, Config: &h.cfg, Owner: owner, Conn: &owner.c}
	if !h2 {
		c.SetHeader("Sec-WebSocket-Accept", websocket.AcceptKey(key))
	}
	if len(h.Subprotocols) > 0 {
		up.Subprotocol = websocket.SelectSubprotocol(headerTokens(req, "Sec-WebSocket-Protocol"), h.Subprotocols)
		if up.Subprotocol != "" {
			c.SetHeader("Sec-WebSocket-Protocol", up.Subprotocol)
		}
	}
	if h.Compression != nil {
		if p, resp, ok := websocket.NegotiateDeflate(headerValues(req, "Sec-WebSocket-Extensions"), *h.Compression); ok {
			up.Deflate = &p
			c.SetHeader("Sec-WebSocket-Extensions", resp)
		}
	}
	if rs != nil {
		rs.upgrade = &up // ServeHTTP switches once the handlers have returned
	} else if _, err := c.ex.UpgradeWebSocket(up); err != nil {
		return fromEngine(err)
	}
	if !h2 {
		c.ex.Status = http.StatusSwitchingProtocols // what middleware (logs, metrics, traces) see
	}
	c.responded, c.upgraded = true, true
	return nil
}

// sameOrigin: no Origin (not a browser), or an Origin whose host is the
// request's Host.
func sameOrigin(req *http1.Request) bool {
	origin := req.Header("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && u.Host != "" && strings.EqualFold(u.Host, req.Host)
}

// headerValues returns every value of the header fields named name.
func headerValues(req *http1.Request, name string) []string {
	var vs []string
	for _, f := range req.Headers {
		if strings.EqualFold(f.Name, name) {
			vs = append(vs, f.Value)
		}
	}
	return vs
}

// headerTokens returns the comma-separated elements of every name field.
func headerTokens(req *http1.Request, name string) []string {
	return websocket.HeaderTokens(headerValues(req, name)...)
}

// headerHasToken reports whether a name field lists token
// (case-insensitively).
func headerHasToken(req *http1.Request, name, token string) bool {
	for _, t := range headerTokens(req, name) {
		if strings.EqualFold(t, token) {
			return true
		}
	}
	return false
}

// wsAdapter is a WSHandler as the engine's handler interface.
type wsAdapter struct{ h *WSHandler }

func (a *wsAdapter) OnOpen(c *engine.WSConn) {
	ws := wsConnOf(c)
	if f := a.h.OnOpen; f != nil {
		f(ws)
	}
}

func (a *wsAdapter) OnMessage(c *engine.WSConn, op Opcode, data []byte) {
	if f := a.h.OnMessage; f != nil {
		f(wsConnOf(c), op, data)
	}
}

func (a *wsAdapter) OnClose(c *engine.WSConn, code CloseCode, reason string) {
	if f := a.h.OnClose; f != nil {
		f(wsConnOf(c), code, reason)
	}
}
