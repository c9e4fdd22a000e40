package http2

import xh2 "golang.org/x/net/http2"

// maxDataFrame bounds one DATA frame: the unit of round-robin interleaving.
const maxDataFrame = 16 << 10

// Output appends the bytes to write to the peer to dst and returns it:
// first the control frames and HEADERS in the order they were queued,
// then DATA of the streams that have some, one frame per stream in turn
// (round robin), within the peer's flow-control windows. It stops once it
// has appended max bytes or more (it may pass max by one frame); max <= 0
// means no limit. Call it after every Feed and every write call, and
// again when the transport can take more; then drain Next (it may report
// EventWritable).
func (c *Conn) Output(dst []byte, max int) []byte {
	start := len(dst)
	if max <= 0 {
		max = int(^uint(0) >> 1)
	}
	dst = c.outputControl(dst, start, max)
	if len(c.ctl) > 0 || c.fatal {
		return dst
	}
	dst = c.writeData(dst, start, max)
	// Ending streams may have queued RST_STREAM or WINDOW_UPDATE frames.
	dst = c.outputControl(dst, start, max)
	c.wakeBlocked()
	c.shrinkIfIdle()
	return dst
}

// smallData is the most a stream may hold to count as a small response
// (OutputSmall).
const smallData = 4 << 10

// OutputSmall appends what must not wait behind large bodies when the
// transport is full of them: the control frames and HEADERS queued (what
// Output sends first), then the DATA, to its end, of the streams that hold
// at most smallData (a small response, an event stream's next event),
// within the flow-control windows. Large bodies wait for Output.
func (c *Conn) OutputSmall(dst []byte) []byte {
	dst = c.outputControl(dst, len(dst), int(^uint(0)>>1))
	if len(c.ctl) > 0 || c.fatal {
		return dst
	}
	var waiting []*stream // small ones whose window is shut
	for i := 0; i < len(c.ready); {
		st := c.ready[i]
		if st.pending() > smallData {
			i++
			continue
		}
		c.ready = append(c.ready[:i], c.ready[i+1:]...)
		st.inReady = false
		for again := true; again; {
			var sent bool
			dst, sent, again = c.emit(dst, st)
			if !sent {
				break
			}
		}
		if !st.closed() && !st.localDone && (st.pending() > 0 || st.endQueued) {
			waiting = append(waiting, st)
		}
	}
	for _, st := range waiting {
		c.schedule(st) // it waits its turn for the window
	}
	dst = c.outputControl(dst, len(dst), int(^uint(0)>>1))
	c.wakeBlocked()
	return dst
}

// outputControl moves whole control frames to dst while under max.
func (c *Conn) outputControl(dst []byte, start, max int) []byte {
	off := 0
	for off < len(c.ctl) && len(dst)-start < max {
		l := frameLen(c.ctl[off:])
		dst = append(dst, c.ctl[off:off+l]...)
		off += l
		c.ctlCount--
	}
	if off == len(c.ctl) {
		if cap(c.ctl) > 4096 {
			c.ctl = nil
		} else {
			c.ctl = c.ctl[:0]
		}
	} else {
		c.ctl = c.ctl[:copy(c.ctl, c.ctl[off:])]
	}
	return dst
}

// Pending reports whether Output has something to write now.
func (c *Conn) Pending() bool {
	if len(c.ctl) > 0 {
		return true
	}
	for _, st := range c.ready {
		if (st.pending() > 0 && st.sendWindow > 0 && c.sendWindow > 0) || (st.pending() == 0 && st.endQueued) {
			return true
		}
	}
	return false
}

// schedule puts st in the round-robin ring if it has something to send.
func (c *Conn) schedule(st *stream) {
	if st.inReady || st.closed() || st.localDone {
		return
	}
	if (st.pending() > 0 && st.sendWindow > 0) || (st.pending() == 0 && st.endQueued) {
		st.inReady = true
		c.ready = append(c.ready, st)
	}
}

// writeData frames DATA (and trailers) round robin over the ready streams.
func (c *Conn) writeData(dst []byte, start, max int) []byte {
	idle := 0 // streams in a row that could send nothing
	for len(c.ready) > 0 && len(dst)-start < max && idle < len(c.ready) {
		st := c.ready[0]
		copy(c.ready, c.ready[1:])
		c.ready[len(c.ready)-1] = nil
		c.ready = c.ready[:len(c.ready)-1]
		st.inReady = false
		var sent, again bool
		dst, sent, again = c.emit(dst, st)
		if again {
			st.inReady = true
			c.ready = append(c.ready, st)
		}
		if sent {
			idle = 0
		} else {
			idle++
		}
	}
	return dst
}

// emit writes st's next frame: DATA within the windows, or the end of the
// stream (an empty DATA with END_STREAM, or the trailers). It reports
// whether it wrote a frame and whether st stays in the ring.
func (c *Conn) emit(dst []byte, st *stream) (out []byte, sent, again bool) {
	if st.closed() || st.localDone {
		return dst, false, false
	}
	w := c.writer(&dst)
	if p := st.pending(); p > 0 {
		n := int(min(int64(p), st.sendWindow, c.sendWindow, int64(c.peerMaxFrame), maxDataFrame))
		if n <= 0 {
			// Waiting for a WINDOW_UPDATE: on the stream (it schedules the
			// stream again), or on the connection (stay in the ring).
			return dst, false, st.sendWindow > 0
		}
		end := n == p && st.endQueued && !st.hasTrailer
		w.WriteData(st.id, end, st.pend[st.pendOff:st.pendOff+n])
		c.idleFrames = 0 // the peer's WINDOW_UPDATEs answer this
		if n > maxDataFrame/4 {
			c.wfrBig = true
		}
		st.pendOff += n
		st.sendWindow -= int64(n)
		c.sendWindow -= int64(n)
		c.queued -= n
		if st.pendOff == len(st.pend) {
			if st.lent || cap(st.pend) > c.cfg.MaxStreamQueued {
				st.pend, st.lent = nil, false // lent bytes go back to their owner
			} else {
				st.pend = st.pend[:0]
			}
			st.pendOff = 0
		}
		if end {
			c.localEnd(st)
			return dst, true, false
		}
		return dst, true, st.pending() > 0 && st.sendWindow > 0 || st.pending() == 0 && st.endQueued
	}
	if !st.endQueued {
		return dst, false, false
	}
	if st.hasTrailer {
		c.encBuf.Reset()
		c.encodeFields(st.trailer)
		st.trailer = nil
		c.writeBlock(&dst, st.id, true)
	} else {
		w.WriteData(st.id, true, nil)
	}
	c.localEnd(st)
	return dst, true, false
}

// dropOutput forgets a closed stream's queued DATA.
func (c *Conn) dropOutput(st *stream) {
	c.queued -= st.pending()
	st.pend, st.pendOff, st.lent, st.trailer = nil, 0, false, nil
	if st.inReady {
		st.inReady = false
		for i, s := range c.ready {
			if s == st {
				c.ready = append(c.ready[:i], c.ready[i+1:]...)
				c.ready = c.ready[:len(c.ready):len(c.ready)]
				break
			}
		}
	}
}

// dropAllOutput forgets every stream's queued DATA (the connection failed).
func (c *Conn) dropAllOutput() {
	for _, st := range c.streams {
		st.pend, st.pendOff, st.lent, st.trailer, st.inReady = nil, 0, false, nil, false
	}
	c.ready, c.queued = nil, 0
}

var _ = xh2.FrameData
