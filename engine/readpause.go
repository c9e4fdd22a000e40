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
// (in our own gc.Write: every engine write to gnet goes through gnetWrite,
// gnetWritev or gnetFlush, which note it) and when that output drains (not
// noticed until the read it lets in reaches OnTraffic).
// Each such re-arm lets in at most one read of gnet's buffer (64 KiB)
// before the next callback pauses again; MaxInboundBytes stays as the hard
// cap over those.
//
// The same pause keeps a client's half-close from costing it its last
// responses where nothing else does. gnet closes a connection as soon as it
// reads EOF. An HTTP/1 connection on Linux is carried past that EOF onto a
// duplicate of its socket while responses are in flight, a WebSocket while
// callbacks run (peerdone_linux.go), and then reads nothing more
// (intentPeerDone); and while gnet holds their output, they do not read
// (outputHeldFromEOF), for gnet's close would drop that output. A
// connection of another protocol that parses no more input does not read
// while what is in flight is produced (intentStopReading: a WebSocket
// waiting to answer its peer's close frame after the callbacks before it);
// the intent rises to intentCloseWhenDone once that is out, and reading is
// on again even while output waits: an HTTP/2 connection after GOAWAY, or
// a client that does not read, must still be seen leaving. (An HTTP/1
// client that leaves while gnet holds its output is seen by the reset it
// answers that output with, or by the write timeout.)

// syncReadPause makes the socket's read interest match the connection's
// state at the end of a loop callback: off while parsing is paused, while
// a FIN must not be read yet (awaitingLastResponses), or while gnet holds
// HTTP/1 or WebSocket output (outputHeldFromEOF); on otherwise (including
// while input is discarded before a close).
func (c *conn) syncReadPause() {
	if c.closed || c.noReadPause {
		return
	}
	want := c.readsHeldBack() || c.outputHeldFromEOF()
	if want == c.readOff {
		return
	}
	if !c.setReadInterest(!want) {
		c.noReadPause = true // fall back to the cap for this connection
		c.readOff = false
		return
	}
	c.readOff = want
}

// gnetWrite writes p through gnet (see gnetWritten).
func (c *conn) gnetWrite(p []byte) {
	if !c.readOff { // nothing to note: reading is on
		_, _ = c.gc.Write(p)
		return
	}
	held := c.gc.OutboundBuffered()
	_, _ = c.gc.Write(p)
	c.gnetWritten(held)
}

// gnetWritev writes bs through gnet (see gnetWritten).
func (c *conn) gnetWritev(bs [][]byte) {
	if !c.readOff {
		_, _ = c.gc.Writev(bs)
		return
	}
	held := c.gc.OutboundBuffered()
	_, _ = c.gc.Writev(bs)
	c.gnetWritten(held)
}

// gnetWritten keeps the read pause's record of the registration (readOff)
// true after a write through gnet made while reading was off; held is what
// gnet held before it. A write that leaves output behind where gnet held
// none makes gnet register EPOLLIN|EPOLLOUT, reading on, whatever the
// pause had set.
func (c *conn) gnetWritten(held int) {
	if held == 0 && !c.closed && c.gc.OutboundBuffered() > 0 {
		c.readOff = false
	}
}

// gnetFlush flushes gnet's output; one that drains it makes gnet register
// EPOLLIN alone, reading on.
func (c *conn) gnetFlush() {
	if !c.readOff {
		_ = c.gc.Flush()
		return
	}
	held := c.gc.OutboundBuffered()
	_ = c.gc.Flush()
	if held > 0 && !c.closed && c.gc.OutboundBuffered() == 0 {
		c.readOff = false
	}
}

// readsHeldBack: parsing is paused, or a FIN must not be read yet.
func (c *conn) readsHeldBack() bool {
	return c.paused && !c.readingStopped() || c.awaitingLastResponses()
}

// outputHeldFromEOF: gnet holds HTTP/1 or WebSocket output
// (holdsReadsForOutput) it has not written yet. A FIN read now would close
// the connection, and gnet's close writes only what the socket takes at
// once: a client that half-closed while reading a large response would
// lose its tail (net/http sends it all), a WebSocket peer the replies to
// what it sent before its FIN (a gorilla/websocket echo loop writes them
// all). Reading waits until gnet's
// buffer drains; gnet turns it on again itself then, and a FIN read after
// that costs nothing written (what is still with a handler or a callback
// is carried: peerdone_linux.go). A client that leaves meanwhile is still
// seen: a reset is reported without EPOLLIN, and the write timeout (a
// WebSocket's PongTimeout) bounds one that stops reading.
//
// A WebSocket peer's ping or close frame waits meanwhile, as it does in a
// gorilla/websocket loop blocked in a write: its answer would queue behind
// the output anyway. Only once the peer has sent a data message, though:
// a peer that sends nothing but pings and does not read the pongs must
// still be read, to be seen and closed (wsflood.go); one that sent data
// first is held back by its own receive window instead, until PongTimeout
// or the write timeout. Not HTTP/2: a client's frames (RST_STREAM, PING,
// GOAWAY) must be read while output waits, and its FIN ends the
// connection, as in net/http's HTTP/2 server, so there gnet's close may
// still drop the output it holds (README, "Known limits").
func (c *conn) outputHeldFromEOF() bool {
	if c.gc.OutboundBuffered() == 0 {
		return false
	}
	if ws, ok := c.proto.(*wsDriver); ok {
		return (*WSConn)(ws).holdsReadsForOutput()
	}
	return c.proto == protocol(&c.h1)
}

// readResumedByGnet notes, at the start of OnTraffic, that gnet has
// re-armed reading behind our back (its output drained): the registration
// is "read" again until the callback's end pauses it anew. It is counted
// when the pause was for more than gnet's output, which gnet's re-arm is
// for.
func (c *conn) readResumedByGnet() {
	if c.readOff {
		c.readOff = false
		if c.readsHeldBack() {
			c.srv.pipe.readRearms.Add(1)
		}
	}
}
