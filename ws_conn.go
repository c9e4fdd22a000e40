package gwist

import (
	"errors"
	"net"
	"time"

	"github.com/gwist/gwist/engine"
)

// ErrWSClosed: a write after the WebSocket began to close or closed.
var ErrWSClosed = errors.New("gwist: the WebSocket is closed")

// WSConn is one WebSocket connection. Its write methods, Close and the
// accessors may be called from any goroutine.
type WSConn struct {
	// c is the engine's connection, in the same allocation and first
	// (WSUpgrade.Conn): a callback then reaches it without a load from
	// another cache line, and its lines keep their 64-byte alignment.
	c engine.WSConn
	// User is the application's: set it in OnOpen to find its own state
	// from the callbacks.
	User any
}

// wsConnOf returns the WSConn of an engine connection, made with the
// upgrade (Ctx.WebSocket).
func wsConnOf(c *engine.WSConn) *WSConn { return c.Owner.(*WSConn) }

// Subprotocol is the subprotocol the handshake selected ("" for none).
func (ws *WSConn) Subprotocol() string { return ws.c.Subprotocol() }

// OverHTTP2 reports whether the WebSocket runs on an HTTP/2 stream (RFC
// 8441) rather than on an upgraded HTTP/1.1 connection.
func (ws *WSConn) OverHTTP2() bool { return ws.c.OverHTTP2() }

// Compressed reports whether permessage-deflate was negotiated.
func (ws *WSConn) Compressed() bool { return ws.c.Compressed() }

// RemoteAddr is the peer's address.
func (ws *WSConn) RemoteAddr() net.Addr { return ws.c.RemoteAddr() }

// WriteMessage sends one message (TextMessage, whose data must be valid
// UTF-8, or BinaryMessage). The message is framed at once and the event
// loop writes it. While more than WSConfig.MaxQueued bytes wait for the
// peer it blocks until they drain or the connection ends (an Inline App's
// callbacks run on the loop: there the loop first writes out what earlier
// callbacks queued, and it fails with ErrSlowClient if the socket does
// not take enough of it, instead of blocking).
// It fails with ErrWSClosed once a close frame was queued or the
// connection is gone.
func (ws *WSConn) WriteMessage(op Opcode, data []byte) error {
	return fromEngine(ws.c.WriteMessage(op, data))
}

// TryWriteMessage is WriteMessage without blocking: beyond the cap it
// fails with ErrSlowClient and queues nothing.
func (ws *WSConn) TryWriteMessage(op Opcode, data []byte) error {
	return fromEngine(ws.c.TryWriteMessage(op, data))
}

// WriteText sends s as a text message (see WriteMessage).
func (ws *WSConn) WriteText(s string) error { return fromEngine(ws.c.WriteText(s)) }

// Close starts the close handshake: a close frame with code and reason
// goes out after what is queued, the peer's answer closes the connection
// (or WSConfig.CloseTimeout does), and OnClose runs. Closing twice does
// nothing. The code must be one a close frame may carry (1000, 1001, 1008,
// 1011, 3000-4999, ...); reason is cut to fit 123 bytes.
func (ws *WSConn) Close(code CloseCode, reason string) error {
	return fromEngine(ws.c.Close(code, reason))
}

// WSConfig holds a WebSocket endpoint's limits and timers; the zero value
// of every field means its default. One WSConfig is shared by every
// connection of the endpoint.
type WSConfig struct {
	// MaxMessage caps a received message after reassembly and
	// decompression (default 1 MiB); a bigger one closes with 1009.
	MaxMessage int64
	// MaxFrame caps a received frame's payload (default MaxMessage).
	MaxFrame int64
	// PingInterval: a ping is sent when nothing has been received for this
	// long (default 30 s; negative: never).
	PingInterval time.Duration
	// PongTimeout: the connection is closed (OnClose sees 1006) when
	// nothing, pong or otherwise, arrives within this long after a ping
	// (default 15 s).
	PongTimeout time.Duration
	// IdleTimeout closes the connection with 1001 when no data message has
	// gone either way for this long (default 0: never; pings and pongs do
	// not count).
	IdleTimeout time.Duration
	// CloseTimeout bounds the wait for the peer's close frame after the
	// server sent one (default 5 s); then the connection is closed.
	CloseTimeout time.Duration
	// MaxQueued caps the bytes written and not yet taken by the socket
	// (default 256 KiB). Beyond it WriteMessage blocks and
	// TryWriteMessage fails with ErrSlowClient; from half of it on, the
	// peer's data is no longer read (it does not read what it is sent).
	MaxQueued int
	// MaxReadQueue caps the received messages waiting for OnMessage
	// (default 16), and MaxReadQueueBytes their bytes (default 256 KiB):
	// beyond either the socket is not read until the callbacks catch up,
	// so TCP flow control slows the peer down.
	MaxReadQueue      int
	MaxReadQueueBytes int
}

// withDefaults is cfg, its zero fields set, as the engine takes it.
func (cfg WSConfig) withDefaults() engine.WSConfig { return engine.WSConfig(cfg).WithDefaults() }

// WSHub is a set of WebSocket connections to broadcast to; see NewWSHub.
// Its methods may be called from any goroutine.
type WSHub struct{ h *engine.WSHub }

// NewWSHub returns an empty hub. Add connections in OnOpen; they leave it
// by themselves when they close.
func NewWSHub() *WSHub { return &WSHub{engine.NewWSHub()} }

// Add puts ws in the hub (a closed connection is not added).
func (h *WSHub) Add(ws *WSConn) { h.h.Add(&ws.c) }

// Remove takes ws out of the hub.
func (h *WSHub) Remove(ws *WSConn) { h.h.Remove(&ws.c) }

// Len is the number of connections in the hub.
func (h *WSHub) Len() int { return h.h.Len() }

// Broadcast sends one message to every connection of the hub without
// blocking. The frame is encoded once and the same bytes are queued to
// every connection (a plaintext connection with nothing else queued hands
// them to its socket without a copy of its own; a TLS connection encrypts
// them into its own records). Messages are sent uncompressed
// (permessage-deflate allows it). A connection over its
// WSConfig.MaxQueued is not waited for: it is closed with 1008 (policy
// violation, "too slow"), so a slow reader never silently misses a message
// and never holds up the others. sent counts the connections the message
// was queued to, dropped those closed for it.
func (h *WSHub) Broadcast(op Opcode, data []byte) (sent, dropped int) { return h.h.Broadcast(op, data) }
