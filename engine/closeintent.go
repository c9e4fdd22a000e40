//go:build unix

package engine

// closeIntent is how a connection is to end, as its drivers and the
// lifecycle decide it; it only rises, never falls back. Loop only.
type closeIntent uint8

const (
	// intentServe: requests are read and served.
	intentServe closeIntent = iota
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
	return c.intent == intentPeerDone || c.intent == intentStopReading && !c.carriedPastEOF()
}

// closingWhenDone: the connection closes once its output has left.
func (c *conn) closingWhenDone() bool { return c.intent == intentCloseWhenDone }
