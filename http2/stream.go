package http2

import "github.com/gwist/gwist/http1"

// stream is one stream's state. RFC 9113's states map onto two flags:
// open (neither side ended), half-closed (remote) = remoteDone,
// half-closed (local) = localDone, closed = both, or reset. Idle streams
// have no record; neither have closed ones once the application has
// released them (ids at or below maxClientID with no record are closed).
type stream struct {
	id         uint32
	remoteDone bool // the peer sent END_STREAM
	localDone  bool // our END_STREAM went out
	reset      bool
	counted    bool // counted in Conn.active

	delivered bool // EventRequest went out: a handler slot is held
	released  bool // the application called Release

	// Receiving (request body).
	recvWindow int64 // what the peer may still send
	unconsumed int   // delivered DATA bytes not yet Consumed
	unacked    int   // consumed bytes not yet returned with WINDOW_UPDATE
	declared   int64 // content-length, -1 if none
	received   int64
	trailers   bool // trailers received

	// Sending (response).
	sendWindow  int64
	headersSent bool
	pend        []byte // DATA queued, from pendOff on
	pendOff     int
	lent        bool                // pend is the caller's (LendData), not a copy
	endQueued   bool                // END_STREAM (or trailers) after pend
	trailer     []http1.HeaderField // trailers to send after pend
	hasTrailer  bool
	inReady     bool // in the write scheduler's ring
	blocked     bool // waiting for EventWritable
	lateRST     bool // a RST_STREAM NO_ERROR is to follow (resetLater)
}

func (st *stream) pending() int { return len(st.pend) - st.pendOff }

// closed: nothing more goes either way on the stream.
func (st *stream) closed() bool { return st.reset || (st.remoteDone && st.localDone) }

// newStream opens stream id (idle → open) and counts it as active.
func (c *Conn) newStream(id uint32) *stream {
	st := &stream{
		id:         id,
		recvWindow: int64(c.cfg.StreamWindow),
		sendWindow: int64(c.peerInitWindow),
		declared:   -1,
		counted:    true,
	}
	c.streams[id] = st
	c.active++
	c.cfg.Counters.noteOpened()
	return st
}

// afterStateChange frees what a stream no longer needs once it is closed:
// its active count, its queued output, and its record once the application
// has released it (or never got it).
func (c *Conn) afterStateChange(st *stream) {
	if !st.closed() {
		return
	}
	if st.counted {
		st.counted = false
		c.active--
	}
	c.dropOutput(st)
	if st.unconsumed > 0 && (st.released || !st.delivered) {
		c.creditConn(st.unconsumed)
		st.unconsumed = 0
	}
	if !st.delivered || st.released {
		delete(c.streams, st.id)
	}
}

// remoteEnd: the peer's side ended (END_STREAM on HEADERS or DATA).
func (c *Conn) remoteEnd(st *stream) {
	st.remoteDone = true
	c.afterStateChange(st)
}

// resetStream sends RST_STREAM for a stream error and closes the stream.
func (c *Conn) resetStream(st *stream, code ErrCode) {
	if st.reset {
		return
	}
	c.queueRST(st.id, code)
	if st.delivered && !st.localDone && code != ErrCodeNo {
		c.noteEarlyReset() // a server reset with a handler running (MadeYouReset)
	}
	c.closeReset(st, code)
}

// closeReset marks a stream reset (by either side) and tells the
// application if it holds the stream.
func (c *Conn) closeReset(st *stream, code ErrCode) {
	st.reset = true
	if st.delivered && !st.released {
		c.events.push(Event{Kind: EventReset, Stream: st.id, Code: code})
	}
	c.afterStateChange(st)
}
