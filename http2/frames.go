package http2

import (
	"github.com/gwist/gwist/http1"
	xh2 "golang.org/x/net/http2"
)

// handleFrame applies one frame read by the Framer.
func (c *Conn) handleFrame(f xh2.Frame) {
	switch f := f.(type) {
	case *xh2.HeadersFrame, *xh2.ContinuationFrame:
		c.idleFrames = 0
	case *xh2.DataFrame:
		if len(f.Data()) > 0 || f.StreamEnded() {
			c.idleFrames = 0
		} else {
			c.noteIdleFrame()
		}
	default:
		c.noteIdleFrame()
	}
	if c.fatal {
		return
	}
	switch f := f.(type) {
	case *xh2.DataFrame:
		c.onData(f)
	case *xh2.HeadersFrame:
		c.onHeaders(f)
	case *xh2.ContinuationFrame:
		// The Framer has checked that it follows HEADERS of the same stream.
		if c.blockFragment(f.HeaderBlockFragment()) && f.HeadersEnded() {
			c.endBlock()
		}
	case *xh2.PriorityFrame:
		if f.StreamDep == f.StreamID {
			c.streamError(f.StreamID, ErrCodeProtocol)
		}
		// Otherwise parsed and ignored (RFC 9113 deprecates the scheme).
	case *xh2.RSTStreamFrame:
		c.onRSTStream(f)
	case *xh2.SettingsFrame:
		c.onSettings(f)
	case *xh2.PingFrame:
		if !f.IsAck() {
			c.queueControl(func(w *xh2.Framer) { w.WritePing(true, f.Data) })
		}
	case *xh2.GoAwayFrame:
		if !c.peerGoAway {
			c.peerGoAway = true
			c.events.push(Event{Kind: EventGoAway, Code: f.ErrCode})
		}
	case *xh2.WindowUpdateFrame:
		c.onWindowUpdate(f)
	case *xh2.PushPromiseFrame:
		c.fail(ErrCodeProtocol, "PUSH_PROMISE from a client")
	default:
		// Unknown frame types are ignored (RFC 9113 section 4.1).
	}
}

// streamError sends RST_STREAM for a stream error on id, whatever its
// state (an idle id is a connection error).
func (c *Conn) streamError(id uint32, code ErrCode) {
	if st := c.streams[id]; st != nil && !st.closed() {
		c.resetStream(st, code)
		return
	}
	if id > c.maxClientID && id%2 == 1 {
		// An idle stream: RFC 9113 allows the reset, which closes it.
		c.maxClientID = id
	}
	c.queueRST(id, code)
}

// onHeaders starts a request's header block or a trailer section.
func (c *Conn) onHeaders(f *xh2.HeadersFrame) {
	id := f.StreamID
	if f.HasPriority() && f.Priority.StreamDep == id {
		// A stream depending on itself: a stream error, but the block must
		// still be decoded to keep the HPACK state.
		c.startBlock(id, nil, false, false)
		if c.blockFragment(f.HeaderBlockFragment()) && f.HeadersEnded() {
			c.endBlock()
		}
		if !c.fatal {
			c.streamError(id, ErrCodeProtocol)
		}
		return
	}
	st := c.streams[id]
	switch {
	case id%2 == 0:
		c.fail(ErrCodeProtocol, "even stream id from a client")
		return
	case st != nil && st.closed(), st == nil && id <= c.maxClientID:
		// Closed: after END_STREAM both ways or a reset.
		c.fail(ErrCodeStreamClosed, "HEADERS on a closed stream")
		return
	case st != nil && st.remoteDone:
		c.startBlock(id, nil, false, false)
		if c.blockFragment(f.HeaderBlockFragment()) && f.HeadersEnded() {
			c.endBlock()
		}
		if !c.fatal {
			c.resetStream(st, ErrCodeStreamClosed)
		}
		return
	case st != nil:
		// Trailers: they must end the stream.
		c.startBlock(id, st, true, f.StreamEnded())
		if !f.StreamEnded() {
			c.hb.st = nil
			if c.blockFragment(f.HeaderBlockFragment()) && f.HeadersEnded() {
				c.endBlock()
			}
			if !c.fatal {
				c.resetStream(st, ErrCodeProtocol)
			}
			return
		}
	default:
		// A new stream.
		c.maxClientID = id
		if c.goAwaySent {
			c.startBlock(id, nil, false, false) // ignored, but decoded
		} else if c.active >= int(c.cfg.MaxConcurrentStreams) || c.handlers >= int(c.cfg.MaxConcurrentStreams) {
			if c.handlers >= int(c.cfg.MaxConcurrentStreams) {
				c.noteEarlyReset() // handlers still busy with reset streams
			}
			c.startBlock(id, nil, false, false)
			c.queueRST(id, ErrCodeRefusedStream)
		} else {
			st = c.newStream(id)
			c.startBlock(id, st, false, f.StreamEnded())
		}
	}
	if c.blockFragment(f.HeaderBlockFragment()) && f.HeadersEnded() {
		c.endBlock()
	}
}

// deliverRequest hands a complete request head to the application.
func (c *Conn) deliverRequest(st *stream, r *Request, endStream bool) {
	st.delivered = true
	c.handlers++
	c.events.push(Event{Kind: EventRequest, Stream: st.id, Request: r, EndStream: endStream})
	if endStream {
		c.remoteEnd(st)
	}
}

// onTrailers delivers a trailer section; it ends the stream.
func (c *Conn) onTrailers(st *stream, fields []http1.HeaderField) {
	if st.declared >= 0 && st.received != st.declared {
		c.resetStream(st, ErrCodeProtocol)
		return
	}
	st.trailers = true
	c.events.push(Event{Kind: EventTrailers, Stream: st.id, Trailers: fields, EndStream: true})
	c.remoteEnd(st)
}

// onData takes request body bytes.
func (c *Conn) onData(f *xh2.DataFrame) {
	id := f.StreamID
	size := int64(f.Length) // padding included: it is flow-controlled too
	if size > c.recvWindow {
		c.fail(ErrCodeFlowControl, "connection window exceeded")
		return
	}
	c.recvWindow -= size
	st := c.streams[id]
	if st == nil || st.closed() || st.remoteDone {
		c.creditConn(int(size))
		if st == nil && id > c.maxClientID {
			c.fail(ErrCodeProtocol, "DATA on an idle stream")
			return
		}
		if st != nil && !st.closed() {
			c.resetStream(st, ErrCodeStreamClosed)
		} else {
			c.queueRST(id, ErrCodeStreamClosed)
		}
		return
	}
	if size > st.recvWindow {
		c.creditConn(int(size))
		c.resetStream(st, ErrCodeFlowControl)
		return
	}
	st.recvWindow -= size
	data := f.Data()
	if pad := int(size) - len(data); pad > 0 {
		c.creditConn(pad)
		c.creditStream(st, pad)
	}
	st.received += int64(len(data))
	if st.declared >= 0 && (st.received > st.declared || (f.StreamEnded() && st.received != st.declared)) {
		c.creditConn(len(data))
		c.resetStream(st, ErrCodeProtocol)
		return
	}
	if !st.delivered || st.released {
		// Nobody will read it (the handler has returned): give it back.
		c.creditConn(len(data))
		if f.StreamEnded() {
			c.remoteEnd(st)
		}
		return
	}
	st.unconsumed += len(data)
	if len(data) > 0 || f.StreamEnded() {
		c.events.push(Event{Kind: EventData, Stream: id, Data: data, EndStream: f.StreamEnded()})
		c.dataOut = len(data) > 0
	}
	if f.StreamEnded() {
		c.remoteEnd(st)
	}
}

// onRSTStream: the peer reset a stream.
func (c *Conn) onRSTStream(f *xh2.RSTStreamFrame) {
	id := f.StreamID
	st := c.streams[id]
	if st == nil {
		if id > c.maxClientID {
			c.fail(ErrCodeProtocol, "RST_STREAM on an idle stream")
		}
		return
	}
	if st.closed() {
		return
	}
	c.cfg.Counters.noteResetByPeer(f.ErrCode)
	if !st.localDone {
		c.noteEarlyReset() // CVE-2023-44487: reset before the response ended
	}
	c.closeReset(st, f.ErrCode)
}

// onWindowUpdate grows a send window.
func (c *Conn) onWindowUpdate(f *xh2.WindowUpdateFrame) {
	inc := int64(f.Increment)
	if f.StreamID == 0 {
		if c.sendWindow+inc > maxWindow {
			c.fail(ErrCodeFlowControl, "connection window above 2^31-1")
			return
		}
		c.sendWindow += inc
		return
	}
	st := c.streams[f.StreamID]
	if st == nil {
		if f.StreamID > c.maxClientID {
			c.fail(ErrCodeProtocol, "WINDOW_UPDATE on an idle stream")
		}
		return
	}
	if st.closed() {
		return
	}
	if st.sendWindow+inc > maxWindow {
		c.resetStream(st, ErrCodeFlowControl)
		return
	}
	st.sendWindow += inc
	c.schedule(st)
}

// noteIdleFrame counts a frame that did nothing for the application; past
// Config.MaxIdleFrames in a row the connection is a flood.
func (c *Conn) noteIdleFrame() {
	c.idleFrames++
	if c.idleFrames > c.cfg.MaxIdleFrames {
		c.fail(ErrCodeEnhanceYourCalm, "too many frames that do nothing")
	}
}
