//go:build unix

package engine

// closeIntent is how a connection is to end, as its drivers and the
// lifecycle decide it; it only rises, never falls back. Loop only.
type closeIntent uint8

const (
	// intentServe: requests are read and served.
	intentServe closeIntent = iota
	// intentPeerShut: the client has shut its write side while its TLS
	// handshake was still running (peerdone_linux.go): what it sent is
	// parsed once the handshake is done, nothing more is read; then as
	// intentPeerDone.
	intentPeerShut
	// intentStopReading: no further requests are parsed (a request without
	// keep-alive, a drain, an upgrade's refusal): input is discarded, the
	// responses in flight still go out.
	intentStopReading
	// intentPeerDone: the client has shut its write side with responses
	// still with their handlers (peerdone_linux.go): nothing more is read,
	// and once those responses are written the connection closes, keep-alive
	// or not.
	intentPeerDone
	// intentCloseWhenDone: reading stopped, and the connection closes once
	// every queued response has been written (a framing error, a refusal,
	// the end of a WebSocket, an HTTP/2 GOAWAY).
	intentCloseWhenDone
)

// stopReading raises the intent to intentStopReading.
func (c *conn) stopReading() { c.intent = max(c.intent, intentStopReading) }

// closeWhenDone raises the intent to intentCloseWhenDone.
func (c *conn) closeWhenDone() { c.intent = intentCloseWhenDone }

// readingStopped: no more requests are parsed.
func (c *conn) readingStopped() bool { return c.intent >= intentStopReading }

// awaitingLastResponses: no more requests are parsed, the responses in
// flight are still with their handlers, and a FIN read now would cost them
// (readpause.go): the client has shut its side already, or one it shuts
// would close the connection (gnet closes at EOF) without the engine
// carrying it past (peerdone_linux.go: HTTP/1 on Linux).
func (c *conn) awaitingLastResponses() bool {
	switch c.intent {
	case intentPeerShut, intentPeerDone:
		return true
	case intentStopReading:
		return !c.carriedPastEOF()
	}
	return false
}

// parsedAfterPeerShut runs once the input a client sent before shutting
// its side is parsed (intentPeerShut): the connection goes on as after a
// half-close behind its requests, or closes if none is in flight. Over
// HTTP/2 it is closed: its driver does not end on its own without input.
// While requests still wait behind MaxPipelined (carriedInputLeft) it
// waits for them; a request the input ends in the middle of is dropped.
func (c *conn) parsedAfterPeerShut() {
	switch {
	case c.intent != intentPeerShut:
	case c.carriedInputLeft():
	case c.proto != protocol(&c.h1):
		c.abort()
	case c.proto.queued():
		c.h1.dropPartial()
		c.intent = intentPeerDone
	default:
		c.closeWhenDone()
	}
}

// closingWhenDone: the connection closes once its output has left.
func (c *conn) closingWhenDone() bool { return c.intent == intentCloseWhenDone }
