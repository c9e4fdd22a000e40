//go:build unix

package engine

import "github.com/panjf2000/gnet/v2"

// The protocol driver reads its input and writes its output through these, so
// it works the same over plaintext (gnet's buffers) and TLS (decrypted
// plaintext, encrypted output).

// wireIn is the gnet connection the socket's input is buffered in: c.gc,
// or, while what a half-closed client sent is parsed for a duplicate of its
// socket (parseFrom), the connection gnet is closing (peerdone_linux.go),
// and after it what of that input waits behind MaxPipelined
// (carriedInput).
func (c *conn) wireIn() gnet.Conn {
	if c.intent == intentPeerShut && c.loop != nil {
		if c.loop.parked.c == c {
			return c.loop.parked.from
		}
		if in := c.loop.carried[c]; in != nil {
			return in
		}
	}
	return c.gc
}

// carriedInput is what a half-closed client sent that still waited behind
// MaxPipelined when gnet read its FIN (parseParked): gnet's buffer goes
// with the connection it closes, so the rest is copied here and parsed as
// the responses make room, through the three methods of gnet.Conn the
// parse uses (the others are the duplicate socket's). At most what gnet
// had buffered, which Config.MaxInboundBytes bounds.
type carriedInput struct {
	gnet.Conn
	b []byte
}

// Peek returns the carried bytes (all of them for n < 0, as gnet's Peek).
func (in *carriedInput) Peek(n int) ([]byte, error) {
	if n < 0 || n > len(in.b) {
		return in.b, nil
	}
	return in.b[:n], nil
}

// Discard drops n carried bytes (all for n < 0).
func (in *carriedInput) Discard(n int) (int, error) {
	if n < 0 || n > len(in.b) {
		n = len(in.b)
	}
	in.b = in.b[n:]
	return n, nil
}

// InboundBuffered is the number of carried bytes left.
func (in *carriedInput) InboundBuffered() int { return len(in.b) }

// carryInput copies what is left in old, the gnet connection being closed
// under a half-closed client, for c to parse later (carriedInput). Loop
// only.
func (c *conn) carryInput(old gnet.Conn) {
	rest, _ := old.Peek(-1)
	if len(rest) == 0 {
		return
	}
	if c.loop.carried == nil {
		c.loop.carried = make(map[*conn]*carriedInput)
	}
	c.loop.carried[c] = &carriedInput{Conn: c.gc, b: append([]byte(nil), rest...)}
}

// carriedInputLeft reports whether requests a client sent before shutting
// its side still wait behind a pause (MaxPipelined) on a connection carried
// past its FIN (peerdone_linux.go): copied out of the closed gnet
// connection (carriedInput), or over TLS decrypted already or still with
// the state machine (also after a FIN that came during the handshake);
// the connection parses them as the responses before them make room. Once
// none is left, a carried copy is forgotten. Loop only.
func (c *conn) carriedInputLeft() bool {
	if c.paused && !c.closed && c.inboundBytes() > 0 {
		return true
	}
	if c.loop != nil && c.loop.carried != nil {
		delete(c.loop.carried, c)
	}
	return false
}

// parseFrom runs parse with the connection's input read from old, the gnet
// connection gnet is closing after a half-closed client's FIN, where what
// it sent and the loop had not parsed yet waits (wireIn). Loop only.
func (c *conn) parseFrom(old gnet.Conn, parse func()) {
	c.intent = intentPeerShut
	c.loop.parked = parkedInput{c: c, from: old}
	parse()
	c.loop.parked = parkedInput{}
}

// input returns the unparsed request bytes. Valid until consume or the end
// of the callback.
func (c *conn) input() []byte {
	if c.isTLS() {
		return c.plain[c.plainOff:]
	}
	buf, _ := c.wireIn().Peek(-1)
	return buf
}

// consume drops n bytes of input.
func (c *conn) consume(n int) {
	if n <= 0 {
		return // gnet's Discard(0) would drop everything
	}
	if !c.isTLS() {
		_, _ = c.wireIn().Discard(n)
		return
	}
	c.plainOff += n
	if c.plainOff >= len(c.plain) {
		c.plain, c.plainOff = c.plain[:0], 0
	}
}

// discardInput drops all buffered input.
func (c *conn) discardInput() {
	if c.isTLS() {
		c.plain, c.plainOff = c.plain[:0], 0
	}
	_, _ = c.wireIn().Discard(-1)
}

// inboundBytes is how much unparsed input the connection holds.
func (c *conn) inboundBytes() int {
	n := c.wireIn().InboundBuffered()
	if c.isTLS() {
		n += len(c.plain) - c.plainOff
	}
	return n
}

// resumeIfPaused resumes a paused parse, unless reading has stopped for
// good; it reports whether it did. (The drain watch's look for requests
// parked behind MaxOutboundBytes too: serve pauses, and arms the watch,
// again while the output is over the limit.)
func (c *conn) resumeIfPaused() bool {
	if !c.paused || c.closed || c.readingStopped() {
		return false
	}
	c.resume()
	c.parsedAfterPeerShut() // it may have parsed a half-closed client's last requests
	return true
}

// resume continues after a pause: parse what is buffered (decrypting
// first over TLS).
func (c *conn) resume() {
	if c.isTLS() {
		c.paused = false // let onTLSTraffic feed again; process re-pauses if needed
		c.proto.serve()
		if !c.paused {
			c.onTLSTraffic()
		}
		return
	}
	c.proto.serve()
}

// writeWire sends response bytes: as they are, or encrypted, in pieces of
// wireFlushPlain, each written before the next is sealed, so that the
// ciphertext of a large body never sits whole in one buffer.
func (c *conn) writeWire(p []byte) {
	c.loopOnly("conn.writeWire")
	if !c.isTLS() {
		c.gnetWrite(p)
		return
	}
	for {
		n := min(len(p), wireFlushPlain)
		c.markFirstResponse()
		if !c.sendTLS(p[:n]) {
			return
		}
		if p = p[n:]; len(p) == 0 || c.closed {
			return
		}
	}
}

// writeWire2 writes a then b, as writeWire(append(a, b...)) would without
// the copy.
func (c *conn) writeWire2(a, b []byte) {
	if !c.isTLS() {
		c.loopOnly("conn.writeWire2")
		c.gnetWritev([][]byte{a, b})
		return
	}
	c.writeWire(a)
	if !c.closed {
		c.writeWire(b)
	}
}

// seal encrypts p and appends its ciphertext to dst, after any ciphertext
// the TLS state had pending; the records go from crypto/tls straight to
// dst (tlsstate.Conn.Seal). An empty p seals nothing and cannot fail: the
// caller's AppendOutbound takes what is pending (an alert, say, while no
// records can be written).
func (c *conn) seal(dst, p []byte) ([]byte, error) {
	if len(p) == 0 {
		return dst, nil
	}
	return c.tls.Seal(dst, p)
}

// wireFlushPlain is what the loop seals per write: three records' worth
// of plaintext (with TLS 1.2's or 1.3's per-record overhead), so that its
// ciphertext stays under the 64 KiB a pooled wire buffer may keep.
const wireFlushPlain = 3 * (16<<10 - 64)
