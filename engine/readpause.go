//go:build unix

package engine

// The read pause: while a connection's parsing is paused (MaxPipelined
// requests in flight, or MaxOutboundBytes of responses waiting), the engine
// stops reading its socket, so the kernel's receive buffer fills and TCP
// flow control slows the client down. gnet has no such pause, so on Linux
// the engine takes EPOLLIN out of the connection's registration in its
// loop's epoll set (gnetreach_epoll.go); elsewhere the pause is a no-op and
// MaxInboundBytes, larger there, is what bounds a client that runs ahead.
//
// gnet re-registers EPOLLIN by itself when a write leaves output behind
// (in our own gc.Write, noticed at the end of the callback) and when that
// output drains (not noticed until the read it lets in reaches OnTraffic).
// Each such re-arm lets in at most one read of gnet's buffer (64 KiB)
// before the next callback pauses again; MaxInboundBytes stays as the hard
// cap over those.
//
// The same pause keeps a client's half-close from costing it its last
// response. gnet closes a connection as soon as it reads EOF, and a client
// may send its last request and shut its write side at once (`nc -N`, an
// HTTP/1.0 one-shot). So a connection that parses no more requests does
// not read while the responses in flight are produced (intentStopReading;
// the intent rises to intentCloseWhenDone once they are back): what the
// client sends meanwhile, its FIN included, waits in the kernel, and is
// read once the responses are written. A response written in the callback
// that stopped reading costs nothing: the intent has risen by the
// callback's end. Once it has, reading is on again even while output
// waits (intentCloseWhenDone): an HTTP/2 connection after GOAWAY, or a
// client that does not read, must still be seen leaving. The price: while
// a response to a last request is produced, the client's leaving shows
// only when a write fails, not as it happens.

// syncReadPause makes the socket's read interest match the connection's
// state at the end of a loop callback: off while parsing is paused, or
// while the last requests' responses are produced; on otherwise
// (including while input is discarded before a close).
func (c *conn) syncReadPause(obBefore int) {
	if c.closed || c.noReadPause {
		return
	}
	want := c.paused && !c.readingStopped() || c.awaitingLastResponses()
	switch {
	case want != c.readOff:
	case want && obBefore == 0 && c.gc.OutboundBuffered() > 0:
		// A partial write made gnet register EPOLLIN|EPOLLOUT again.
	default:
		return
	}
	if !c.setReadInterest(!want) {
		c.noReadPause = true // fall back to the cap for this connection
		c.readOff = false
		return
	}
	c.readOff = want
}

// readResumedByGnet notes, at the start of OnTraffic, that gnet has
// re-armed reading behind our back (its output drained): the registration
// is "read" again until the callback's end pauses it anew.
func (c *conn) readResumedByGnet() {
	if c.readOff {
		c.readOff = false
		c.srv.pipe.readRearms.Add(1)
	}
}
