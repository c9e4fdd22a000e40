package http2

import xh2 "golang.org/x/net/http2"

// Receive windows are refilled only as the application consumes request
// body bytes (Consumed), or as the connection drops bytes nobody will read
// (padding, closed or released streams): a handler that does not read
// stops its peer after one window, and the connection as a whole never
// holds more than Config.ConnWindow of unread body. A WINDOW_UPDATE goes
// out once half a window is owed, so a reading handler never stalls the
// peer.

// Consumed gives back n bytes of stream id's EventData once the
// application has taken them (copied them away, or handed them to the
// handler). Unknown or finished streams are ignored.
func (c *Conn) Consumed(id uint32, n int) {
	st := c.streams[id]
	if st == nil || n <= 0 || c.fatal {
		return
	}
	n = min(n, st.unconsumed)
	st.unconsumed -= n
	c.creditConn(n)
	c.creditStream(st, n)
}

// creditConn returns n bytes to the connection's receive window.
func (c *Conn) creditConn(n int) {
	if n <= 0 || c.fatal {
		return
	}
	c.connUnacked += n
	if c.connUnacked >= int(c.cfg.ConnWindow/2) {
		inc := c.connUnacked
		c.connUnacked = 0
		c.recvWindow += int64(inc)
		c.writeFrames(&c.ctl, func(w *xh2.Framer) { w.WriteWindowUpdate(0, uint32(inc)) })
	}
}

// creditStream returns n bytes to a stream's receive window.
func (c *Conn) creditStream(st *stream, n int) {
	if n <= 0 || st.remoteDone || st.closed() || c.fatal {
		return
	}
	st.unacked += n
	if st.unacked >= int(c.cfg.StreamWindow/2) {
		inc := st.unacked
		st.unacked = 0
		st.recvWindow += int64(inc)
		c.writeFrames(&c.ctl, func(w *xh2.Framer) { w.WriteWindowUpdate(st.id, uint32(inc)) })
	}
}

// Writable reports how many bytes of response DATA stream id may hand to
// WriteData now: the room left under Config.MaxStreamQueued for the stream
// and Config.MaxConnQueued for the connection. The queue drains as the
// peer's flow-control windows and Output's budget allow, so a peer that
// stops reading (or never opens its window) leaves Writable at 0. When it
// reports 0 the stream is noted, and an EventWritable follows once it has
// room again. It reports -1 when nothing more can be sent on the stream.
func (c *Conn) Writable(id uint32) int {
	st := c.streams[id]
	if st == nil || st.reset || st.localDone || st.endQueued || c.fatal {
		return -1
	}
	n := c.room(st)
	if n == 0 {
		c.block(st)
	}
	return n
}

// room is how many more response bytes st may queue: within its own cap,
// and within the connection's, except that a stream holding less than one
// DATA frame may always fill that frame. So however much large responses
// have queued, a small one (or an event stream's next event) is taken at
// once and framed in the next round of the scheduler (sched.go), never
// after a download ends; the connection then holds at most MaxConnQueued
// plus a frame per stream.
func (c *Conn) room(st *stream) int {
	r := min(c.cfg.MaxStreamQueued-st.pending(), c.cfg.MaxConnQueued-c.queued)
	if floor := min(maxDataFrame, c.cfg.MaxStreamQueued) - st.pending(); floor > r {
		r = floor
	}
	return max(0, r)
}

// SendWindow reports the peer's flow-control window for stream id as it
// stands (the smaller of the stream's and the connection's): what could
// be framed at once. It may be negative after the peer shrank it.
func (c *Conn) SendWindow(id uint32) int64 {
	st := c.streams[id]
	if st == nil {
		return 0
	}
	return min(st.sendWindow, c.sendWindow)
}

func (c *Conn) block(st *stream) {
	if !st.blocked {
		st.blocked = true
		c.blocked = append(c.blocked, st)
	}
}

// wakeBlocked sends EventWritable to the blocked streams that have room
// for at least half a stream queue (or a queue that has drained).
func (c *Conn) wakeBlocked() {
	if len(c.blocked) == 0 {
		return
	}
	want := min(c.cfg.MaxStreamQueued, c.cfg.MaxConnQueued) / 2
	keep := c.blocked[:0]
	for _, st := range c.blocked {
		switch {
		case st.closed() || st.released:
			st.blocked = false
		case st.lent && st.pending() > 0:
			keep = append(keep, st) // LendData takes more once these are framed
		case c.room(st) >= want || (st.pending() == 0 && c.room(st) > 0):
			st.blocked = false
			c.events.push(Event{Kind: EventWritable, Stream: st.id})
		default:
			keep = append(keep, st)
		}
	}
	clear(c.blocked[len(keep):])
	c.blocked = keep
}

// QueuedData reports the response DATA bytes queued on all streams and not
// yet framed by Output.
func (c *Conn) QueuedData() int { return c.queued }
