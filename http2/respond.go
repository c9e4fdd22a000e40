package http2

import (
	"strconv"
	"strings"

	"github.com/gwist/gwist/http1"
	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// liveStream returns the stream the application may still write to.
func (c *Conn) liveStream(id uint32) (*stream, error) {
	if c.fatal {
		return nil, ErrConnClosed
	}
	st := c.streams[id]
	if st == nil || st.reset || st.localDone || st.endQueued {
		return nil, ErrStreamClosed
	}
	return st, nil
}

// WriteHeaders queues a response head on stream id: status and fields
// (names are sent in lowercase; connection-specific fields — Connection,
// Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade — are dropped,
// as HTTP/2 forbids them). endStream ends the response with no body. A
// 1xx status may come before the final one. HEADERS are not flow
// controlled: they go out with the next Output, before any DATA.
func (c *Conn) WriteHeaders(id uint32, status int, fields []http1.HeaderField, endStream bool) error {
	st, err := c.liveStream(id)
	if err != nil {
		return err
	}
	if st.headersSent {
		return ErrHeadersSent
	}
	final := status >= 200
	if !final {
		endStream = false
	}
	c.encBuf.Reset()
	c.enc.WriteField(hpack.HeaderField{Name: ":status", Value: statusText(status)})
	c.encodeFields(fields)
	c.writeBlock(&c.ctl, id, endStream)
	if final {
		st.headersSent = true
	}
	if endStream {
		c.localEnd(st)
	}
	return nil
}

// WriteData queues response body bytes on stream id, copying up to
// Writable(id) of them, and reports how many it took. When it takes fewer
// than len(p) (endStream is then ignored) an EventWritable follows once
// there is room. endStream ends the response after p.
func (c *Conn) WriteData(id uint32, p []byte, endStream bool) (int, error) {
	return c.queueData(id, p, endStream, false)
}

// LendData is WriteData without the copy: the stream frames its DATA from
// p itself. The caller must leave the bytes it took (the first n of p)
// unchanged until Lent(id) reports false: they are then framed, or
// dropped with the stream. It takes bytes only while nothing lent before
// waits on the stream; otherwise it takes none and, as when the queue is
// full, an EventWritable follows once the lent bytes are framed. Behind
// bytes WriteData copied, it copies too.
func (c *Conn) LendData(id uint32, p []byte, endStream bool) (int, error) {
	return c.queueData(id, p, endStream, true)
}

// queueData is WriteData (lend false) and LendData (lend true).
func (c *Conn) queueData(id uint32, p []byte, endStream, lend bool) (int, error) {
	st, err := c.liveStream(id)
	if err != nil {
		return 0, err
	}
	if !st.headersSent {
		return 0, ErrNoHeaders
	}
	lend = lend && (st.pending() == 0 || st.lent)
	n := min(len(p), c.room(st))
	if lend && st.pending() > 0 {
		n = 0 // behind lent bytes: once they are framed
	}
	switch {
	case n == 0:
	case lend:
		st.pend, st.pendOff, st.lent = p[:n:n], 0, true
	default:
		if st.pendOff > 0 && st.pendOff == len(st.pend) {
			st.pend, st.pendOff = st.pend[:0], 0
		}
		// Lent bytes have no room after them (LendData caps them): the
		// append moves them to a buffer of the connection's own.
		st.pend, st.lent = append(st.pend, p[:n]...), false
	}
	c.queued += n
	if n < len(p) {
		c.block(st)
	} else if endStream {
		st.endQueued = true
	}
	c.schedule(st)
	return n, nil
}

// Unlend makes stream id keep a copy of the lent bytes it has not framed
// yet, so that their owner may reuse the buffer at once: for a stream its
// owner is done with, whose last bytes may wait for the peer's window
// indefinitely. The copy is at most what the stream may queue.
func (c *Conn) Unlend(id uint32) {
	st := c.streams[id]
	if st == nil || !st.lent {
		return
	}
	st.pend, st.pendOff, st.lent = append([]byte(nil), st.pend[st.pendOff:]...), 0, false
}

// Lent reports whether stream id still frames DATA from bytes LendData
// took, which their owner must leave unchanged until then.
func (c *Conn) Lent(id uint32) bool {
	st := c.streams[id]
	return st != nil && st.lent
}

// WriteTrailers ends stream id's response with trailer fields, sent after
// the DATA queued before them. The connection keeps fields until then: do
// not change it afterwards.
func (c *Conn) WriteTrailers(id uint32, fields []http1.HeaderField) error {
	st, err := c.liveStream(id)
	if err != nil {
		return err
	}
	if !st.headersSent {
		return ErrNoHeaders
	}
	st.trailer, st.hasTrailer, st.endQueued = fields, true, true
	c.schedule(st)
	return nil
}

// ResetStream resets stream id (RST_STREAM with code), for a response the
// application cannot complete. No EventReset follows.
func (c *Conn) ResetStream(id uint32, code ErrCode) {
	st := c.streams[id]
	if st == nil || st.closed() || c.fatal {
		return
	}
	c.queueRST(id, code)
	st.reset = true
	c.afterStateChange(st)
}

// Release tells the connection the application is done with stream id
// (its handler returned): the handler slot is freed and unread body bytes
// are given back. A response that was not ended is reset (INTERNAL_ERROR);
// one that ended while the request body still arrives is followed by
// RST_STREAM NO_ERROR (RFC 9113 section 8.1), once its queued DATA is out.
// Call it once for every EventRequest, and for stream 1 after Upgrade.
func (c *Conn) Release(id uint32) {
	st := c.streams[id]
	if st == nil || !st.delivered || st.released {
		return
	}
	st.released = true
	c.handlers--
	c.creditConn(st.unconsumed)
	st.unconsumed = 0
	switch {
	case st.closed() || c.fatal:
	case !st.localDone && !st.endQueued:
		c.ResetStream(id, ErrCodeInternal)
		return
	case st.localDone && !st.remoteDone:
		c.resetLater(st)
	}
	c.afterStateChange(st)
}

// localEnd: our END_STREAM went out (or is queued first in ctl).
func (c *Conn) localEnd(st *stream) {
	st.localDone = true
	if !st.reset {
		c.noteCompleted()
	}
	if st.released && !st.remoteDone {
		c.resetLater(st)
	}
	c.afterStateChange(st)
}

// lateReset is a stream to reset (NO_ERROR) once tickGen has moved on.
type lateReset struct {
	id  uint32
	gen uint64
}

// resetLater asks a client that is still sending a request body whose
// response has ended to stop (RST_STREAM NO_ERROR, RFC 9113 section 8.1),
// not in the output that carries the response's end but at the second Tick
// after (a tick or two later): curl 7.88 shows no response at all when the
// reset arrives in the same read as the END_STREAM. The request body that
// arrives meanwhile is dropped (and credited back to the connection).
func (c *Conn) resetLater(st *stream) {
	if st.lateRST {
		return
	}
	st.lateRST = true
	c.lateRST = append(c.lateRST, lateReset{id: st.id, gen: c.tickGen})
}

// sendLateResets queues the resets resetLater deferred that are due: those
// of streams still open on the request's side.
func (c *Conn) sendLateResets() {
	n := 0
	for _, lr := range c.lateRST {
		if c.tickGen < lr.gen+2 {
			c.lateRST[n] = lr
			n++
			continue
		}
		if st := c.streams[lr.id]; st != nil && st.lateRST && !st.closed() {
			c.ResetStream(lr.id, ErrCodeNo)
		}
	}
	clear(c.lateRST[n:])
	c.lateRST = c.lateRST[:n]
}

// answer431 answers a request whose header list is too large, without
// the application.
func (c *Conn) answer431(st *stream, endStream bool) {
	c.encBuf.Reset()
	c.enc.WriteField(hpack.HeaderField{Name: ":status", Value: "431"})
	c.writeBlock(&c.ctl, st.id, true)
	if endStream {
		st.remoteDone = true
	}
	st.localDone = true
	if !st.remoteDone {
		c.resetLater(st)
	}
	c.afterStateChange(st)
}

// encodeFields HPACK-encodes response fields into encBuf.
func (c *Conn) encodeFields(fields []http1.HeaderField) {
	for _, f := range fields {
		name := lowerName(f.Name)
		switch name {
		case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
			continue
		}
		c.enc.WriteField(hpack.HeaderField{Name: name, Value: f.Value})
	}
}

// writeBlock frames encBuf as HEADERS plus CONTINUATION frames of at most
// the peer's frame size.
func (c *Conn) writeBlock(dst *[]byte, id uint32, endStream bool) {
	block := c.encBuf.Bytes()
	max := int(c.peerMaxFrame)
	first := true
	c.writeFrames(dst, func(w *xh2.Framer) {
		for first || len(block) > 0 {
			n := min(len(block), max)
			frag := block[:n]
			block = block[n:]
			end := len(block) == 0
			if first {
				w.WriteHeaders(xh2.HeadersFrameParam{StreamID: id, BlockFragment: frag, EndStream: endStream, EndHeaders: end})
				first = false
			} else {
				w.WriteContinuation(id, end, frag)
			}
		}
	})
}

// lowerName returns name in lowercase, without allocating for names
// already lowercase or common ones.
func lowerName(name string) string {
	for i := 0; i < len(name); i++ {
		if 'A' <= name[i] && name[i] <= 'Z' {
			if l, ok := commonLower[name]; ok {
				return l
			}
			return strings.ToLower(name)
		}
	}
	return name
}

var commonLower = func() map[string]string {
	m := map[string]string{}
	for _, n := range []string{
		"Accept-Ranges", "Age", "Allow", "Cache-Control", "Content-Disposition",
		"Content-Encoding", "Content-Language", "Content-Length", "Content-Location",
		"Content-Range", "Content-Security-Policy", "Content-Type", "Date", "ETag",
		"Expires", "Last-Modified", "Link", "Location", "Retry-After", "Server",
		"Set-Cookie", "Strict-Transport-Security", "Trailer", "Vary", "Via",
		"WWW-Authenticate", "X-Content-Type-Options", "X-Frame-Options",
		"Access-Control-Allow-Origin", "Access-Control-Allow-Headers",
		"Access-Control-Allow-Methods", "Access-Control-Expose-Headers",
	} {
		m[n] = strings.ToLower(n)
	}
	return m
}()

// statusText is the :status value; common codes without allocating.
func statusText(code int) string {
	if code >= 100 && code < 600 {
		return statusStrings[code-100]
	}
	return strconv.Itoa(code)
}

var statusStrings = func() (s [500]string) {
	for i := range s {
		s[i] = strconv.Itoa(100 + i)
	}
	return
}()
