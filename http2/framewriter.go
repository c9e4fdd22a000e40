package http2

import xh2 "golang.org/x/net/http2"

// sink is the io.Writer under the writing Framer: it appends each frame
// to the buffer the connection points it at.
type sink struct{ dst *[]byte }

func (s *sink) Write(p []byte) (int, error) {
	*s.dst = append(*s.dst, p...)
	return len(p), nil
}

// writer returns the Framer that writes frames to *dst.
func (c *Conn) writer(dst *[]byte) *xh2.Framer {
	if c.wfr == nil {
		c.wfr = xh2.NewFramer(&c.sink, nil)
	}
	c.sink.dst = dst
	return c.wfr
}

// writeFrames runs fn with the writing Framer pointed at *dst, counting the
// frames it adds to the control queue.
func (c *Conn) writeFrames(dst *[]byte, fn func(w *xh2.Framer)) {
	old := len(*dst)
	fn(c.writer(dst))
	if dst == &c.ctl {
		c.ctlCount += countFrames(c.ctl[old:])
	}
}

// countFrames counts the whole frames in b.
func countFrames(b []byte) int {
	n := 0
	for len(b) >= frameHeaderLen {
		l := frameLen(b)
		if len(b) < l {
			break
		}
		b = b[l:]
		n++
	}
	return n
}

// frameLen is the length of the frame at the start of b, header included.
func frameLen(b []byte) int {
	return frameHeaderLen + (int(b[0])<<16 | int(b[1])<<8 | int(b[2]))
}

// queueControl queues an answer to the peer (a SETTINGS or PING ACK). More
// than Config.MaxControlQueued of them not taken by Output is a flood:
// the connection fails with ENHANCE_YOUR_CALM.
func (c *Conn) queueControl(fn func(w *xh2.Framer)) {
	if c.fatal {
		return
	}
	if c.ctlCount >= c.cfg.MaxControlQueued {
		c.fail(ErrCodeEnhanceYourCalm, "too many control frames queued")
		return
	}
	c.writeFrames(&c.ctl, fn)
}

// queueRST queues RST_STREAM for id (under the control-frame cap).
func (c *Conn) queueRST(id uint32, code ErrCode) {
	c.cfg.Counters.noteResetBySelf(code)
	c.queueControl(func(w *xh2.Framer) { w.WriteRSTStream(id, code) })
}

// noteEarlyReset counts a stream reset before its response ended (by the
// client, or by the server after the client's error), or refused because
// handlers of reset streams still run. Streams completed normally count
// it down; past Config.MaxResetScore the connection fails with
// ENHANCE_YOUR_CALM (rapid reset, CVE-2023-44487, and "MadeYouReset").
func (c *Conn) noteEarlyReset() {
	c.resetScore++
	if c.resetScore > c.cfg.MaxResetScore {
		c.fail(ErrCodeEnhanceYourCalm, "too many streams reset early")
	}
}

func (c *Conn) noteCompleted() {
	if c.resetScore > 0 {
		c.resetScore--
	}
}
