//go:build unix

package engine

import (
	"context"
	"errors"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/gwist/gwist/sockopt"
	"github.com/gwist/gwist/tlsstate"
)

// tlsConn is the HTTPS half of a conn, made by openTLS when the connection
// opens. Loop only.
type tlsConn struct {
	tls      *tlsstate.Conn
	plain    []byte // decrypted, unparsed request bytes from plainOff
	plainOff int

	established   bool
	peerClosed    bool // the client sent close_notify
	responded     bool // the first response has been written
	quickAckAtEnd bool // re-arm at the end of this callback if nothing was written
	wroteInCB     bool
}

// plainBufSize is what decryption is given to write into: a whole record.
const plainBufSize = 16<<10 + 512

// plainPool holds array pointers, not *[]byte, so that giving a buffer back
// allocates nothing; a buffer grown past plainBufSize is left to the GC.
var plainPool = sync.Pool{New: func() any { return new([plainBufSize]byte) }}

// tlsWaker runs on the loop when the handshake goroutine has a flight or a
// result. It holds the conn, not the gnet.Conn, so a stale wake after close
// is recognised (gnet reuses fd numbers).
type tlsWaker struct{ c *conn }

// Run implements gnet.Runnable.
func (w *tlsWaker) Run(context.Context) error {
	c := w.c
	if c.closed || !c.isTLS() {
		return nil
	}
	c.inCallback = false
	c.proto.collectSettled()
	c.onTLSTraffic()
	c.finishCallback()
	return nil
}

// openTLS sets up the TLS state at accept and arms the first quick ACK.
func (c *conn) openTLS(ts *tlsstate.Server) {
	w := &tlsWaker{c: c}
	el := c.el
	c.tlsConn = new(tlsConn)
	c.tls = ts.NewConn(func() { _ = el.Execute(context.Background(), w) })
	c.tls.SetFlightWriter(c.writeFlight)
	c.quickAck()
}

// writeFlight runs on the handshake goroutine: it sends a handshake flight
// straight to the socket rather than waking the loop to do it, and re-arms
// the quick ACK after it. It follows the direct-write rules (direct.go): the
// fd is touched only under wmu while wclosed is false, and only while gnet
// holds none of our output. What it cannot send goes back to the state
// machine, which hands it to the loop.
func (c *conn) writeFlight(p []byte) []byte {
	if !fdWriteReach.on() {
		return p
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.wclosed || c.wpending {
		return p
	}
	rest, err := writeFD(c.fd, p)
	if err != nil {
		return nil // the socket failed: the loop hears of it from gnet
	}
	if len(rest) == 0 && !c.config().DisableQuickAck {
		_ = sockopt.QuickAck(c.fd) // after each handshake flight
	}
	return rest
}

// quickAck re-arms TCP_QUICKACK so the client's handshake flights are
// ACKed at once (a Nagle client holds its request until they are). Loop
// only: the fd number is ours only while the connection is open.
func (c *conn) quickAck() {
	if c.config().DisableQuickAck || c.closed {
		return
	}
	_ = sockopt.QuickAck(c.gc.Fd())
}

// onTLSTraffic: ciphertext arrived (or the handshake goroutine woke us).
// Feed and decrypt until gnet's input is used up: gnet does not call again
// for bytes already in its buffer, and the state machine takes a bounded
// amount at a time.
func (c *conn) onTLSTraffic() {
	c.wroteInCB = false
	for !c.closed {
		before, wasPaused := c.tls.State(), c.paused
		fed, ok := c.feedTLS()
		if !ok {
			return
		}
		if fed > 0 && before == tlsstate.Handshaking && c.tls.State() == tlsstate.Handshaking {
			// The client's next flight woke the handshake goroutine, which
			// has little left to do: let it run now, on this thread, rather
			// than wake another thread for it and be woken back. What it
			// finishes meanwhile, advanceTLS picks up without a wake-up.
			c.tls.Yield(runtime.Gosched)
		}
		c.advanceTLS()
		if c.paused || c.readingStopped() {
			return
		}
		// Nothing fed ends it, unless it was the pause that kept the
		// ciphertext back and advanceTLS's parse lifted it: feed it now,
		// or it would wait for the client's next bytes (a pipelined
		// request read in while a large response paused parsing).
		if fed == 0 && !wasPaused {
			return
		}
	}
}

// feedTLS moves as much buffered ciphertext as the state machine has room
// for into it. ok is false when the connection failed.
func (c *conn) feedTLS() (fed int, ok bool) {
	in := c.wireIn()
	raw, _ := in.Peek(-1)
	if len(raw) == 0 || c.paused {
		return 0, true
	}
	if c.readingStopped() && c.established {
		_, _ = in.Discard(-1)
		return 0, true
	}
	n := min(c.tls.Room(), len(raw))
	if n == 0 {
		return 0, true // the handshake goroutine notifies when it has made room
	}
	err := c.tls.Feed(raw[:n])
	_, _ = in.Discard(n)
	if st := c.tls.State(); st == tlsstate.AwaitingHello || st == tlsstate.Handshaking {
		c.quickAck() // after every read while handshaking
	}
	if err != nil && !errors.Is(err, tlsstate.ErrBufferFull) {
		c.failTLS(err)
		return 0, false
	}
	return n, true
}

// advanceTLS picks up the handshake's progress, decrypts what has arrived
// and parses it.
func (c *conn) advanceTLS() {
	c.decryptBuffered()
	if c.closed || !c.established {
		return
	}
	if !c.readingStopped() {
		c.proto.serve()
	}
	c.parsedAfterPeerShut()
	if c.peerClosed {
		c.closeWhenDone()
	}
}

// decryptBuffered runs the state machine: flights out, records in.
func (c *conn) decryptBuffered() {
	if c.plainOff > 0 {
		n := copy(c.plain, c.plain[c.plainOff:])
		c.plain, c.plainOff = c.plain[:n], 0
	}
	if c.plain == nil {
		c.plain = plainPool.Get().(*[plainBufSize]byte)[:0]
	}
	var err error
	c.plain, err = c.tls.Process(c.plain)
	handshaking := !c.established
	if handshaking && c.tls.HasOutbound() {
		c.flushTLS()
		c.quickAck() // after each handshake flight
	}
	if handshaking {
		switch c.tls.State() {
		case tlsstate.Established, tlsstate.Closing:
			c.established = true
			c.quickAckAtEnd = true // the handoff, unless a response goes out now
			if c.tls.ACMEChallenge() {
				c.endACMEChallenge()
				return
			}
			if c.config().HTTP2 && c.tls.Info().NegotiatedProtocol == "h2" {
				c.switchToH2()
			}
		}
	}
	switch {
	case err == nil:
	case errors.Is(err, io.EOF):
		c.peerClosed = true
	default:
		c.failTLS(err)
		return
	}
	c.flushTLS() // e.g. a KeyUpdate reply
	c.releasePlainIfEmpty()
}

// endACMEChallenge closes a TLS-ALPN-01 validation (RFC 8737) once its
// handshake is done: the certificate was the answer, and nothing the client
// might send on it is read.
func (c *conn) endACMEChallenge() {
	c.closeWhenDone()
	c.discardInput()
	c.releasePlainIfEmpty()
}

// failTLS sends what the state machine still has (an alert, or a 400 for
// plaintext HTTP on the TLS port), then closes. A failed handshake is
// logged (tlslog.go).
func (c *conn) failTLS(err error) {
	if !c.established {
		c.srv.logHandshakeFailure(c.remote, err)
	}
	c.flushTLS()
	c.closeWhenDone()
	c.discardInput()
}

// flushTLS writes pending ciphertext to gnet (a handshake flight, an
// alert, a KeyUpdate reply). The scratch buffer goes back to the pool at
// once: gnet copies what it cannot send, and an idle connection should
// hold no buffer. It holds wmu so that a worker writing directly never
// sends records out of order (direct.go).
func (c *conn) flushTLS() {
	if c.closed || !c.tls.HasOutbound() {
		return
	}
	_ = c.sendTLS(nil)
}

// sendTLS encrypts p (see seal) and writes its ciphertext, behind what was
// pending, to gnet, under wmu as flushTLS does. It reports false when the
// encryption failed: the connection is aborted then.
func (c *conn) sendTLS(p []byte) bool {
	bp := wirePool.Get().(*[]byte)
	c.lockWire()
	wire, err := c.seal((*bp)[:0], p)
	if err == nil {
		wire = c.tls.AppendOutbound(wire) // what p's records did not take with them
		c.writeCipherLocked(wire)
	}
	c.unlockWire()
	if cap(wire) <= 64<<10 {
		*bp = wire[:0]
		wirePool.Put(bp)
	}
	if err != nil {
		c.srv.logDebug("TLS write failed: "+err.Error(), c)
		c.abort()
		return false
	}
	return true
}

// writeCipher sends ciphertext a worker encrypted but could not send.
func (c *conn) writeCipher(p []byte) {
	if len(p) == 0 || c.closed {
		return
	}
	c.lockWire()
	c.writeCipherLocked(p)
	c.unlockWire()
}

// writeCipherLocked writes ciphertext to gnet; the caller holds wmu.
func (c *conn) writeCipherLocked(p []byte) {
	if len(p) == 0 {
		return
	}
	c.wroteInCB = true
	c.gnetWrite(p)
	c.wpending = !c.closed && c.gc.OutboundBuffered() > 0
}

var wirePool = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// endTLSCallback re-arms the quick ACK at the handoff when the callback
// sent nothing that would carry the ACK itself.
func (c *conn) endTLSCallback() {
	if c.quickAckAtEnd {
		c.quickAckAtEnd = false
		if !c.wroteInCB {
			c.quickAck()
		}
	}
	c.wroteInCB = false
}

// markFirstResponse feeds the handshake → first response timing.
func (c *conn) markFirstResponse() {
	if !c.responded {
		c.responded = true
		c.tls.MarkFirstResponse(time.Now())
	}
}

// closeTLS sends close_notify before the socket closes (OpenSSL clients
// report "unexpected eof" without it).
func (c *conn) closeTLS() {
	c.tls.CloseNotify()
	c.flushTLS()
}

func (c *conn) releasePlainIfEmpty() {
	if c.plain != nil && len(c.plain) == c.plainOff {
		b := c.plain
		c.plain, c.plainOff = nil, 0
		if cap(b) == plainBufSize {
			plainPool.Put((*[plainBufSize]byte)(b[:plainBufSize]))
		}
	}
}

func (c *conn) releaseTLS() {
	c.tls.Release()
	c.plain, c.plainOff = nil, 0
}

// trimIdleTLS gives crypto/tls's read buffers back while the connection
// idles (the sweep calls it; a busy connection keeps them). Waiting for a
// second idle sweep instead was measured: it spared a busy keep-alive
// connection little, and idle TLS memory rose by 300–1,400 B per
// connection (more connections untrimmed at the peak of a ramp).
func (c *conn) trimIdleTLS() {
	if c.isTLS() && c.established && c.phase == phaseIdle && c.plain == nil {
		c.tls.TrimBuffers()
	}
}
