//go:build unix

package engine

// The write timeout: a connection whose queued response bytes (gnet's
// outbound buffer, and on Linux the socket's send queue) have not moved for WriteTimeout is closed, which frees
// them. Any progress restarts the clock, so a slow but live reader is never
// cut. gnet only ever shrinks that buffer outside our callbacks (when it
// flushes), so a drop seen at the start of a callback or a sweep, against
// obMark taken at the end of the previous one, is progress. Direct writes
// by workers (direct.go) are covered too: a worker writes only while gnet
// holds nothing, and what it cannot write comes back to the loop and is
// queued in gnet like any other output.

// noteDrain records progress if gnet flushed output since the loop last
// looked.
func (c *conn) noteDrain() {
	if c.obMark > 0 && c.gc.OutboundBuffered() < c.obMark {
		c.wprogress = c.srv.now()
		c.obMark = c.gc.OutboundBuffered()
	}
}

// markOutbound records the outbound size at the end of a callback; output
// appearing where there was none starts the clock.
func (c *conn) markOutbound() {
	ob := c.gc.OutboundBuffered()
	if ob > 0 && c.obMark == 0 {
		c.wprogress = c.srv.now()
	}
	c.obMark = ob
}

// writeStalled reports, at a sweep, whether queued output has not moved
// for WriteTimeout. Besides gnet's buffer it looks at the kernel's send
// queue (Linux), which a slow reader drains long before gnet's flush.
func (c *conn) writeStalled(now int64) bool {
	c.noteDrain()
	c.markOutbound()
	if c.obMark == 0 {
		c.sqMark = 0
		return false
	}
	if q := sendQueued(c.fd); q >= 0 {
		if q < c.sqMark {
			c.wprogress = now
		}
		c.sqMark = q
	}
	return now-c.wprogress >= int64(c.config().WriteTimeout)
}
