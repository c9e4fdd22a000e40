//go:build linux && !poll_opt

package engine

import (
	"errors"
	"io"

	"github.com/gwist/gwist/tlsstate"
	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// A client that shuts its write side right after its requests (a
// half-close: `nc -N`, `printf … | nc`, an HTTP/1.0 one-shot, a script's
// one-shot over a keep-alive client) is still owed its responses, as
// net/http and fasthttp give them. gnet closes a connection as soon as a
// read returns EOF, and on workers that read comes before the response is
// written. Pausing reads behind every request (readpause.go) would cost
// two epoll_ctl per request, and still lose a FIN read with the request.
//
// So the engine lets gnet have its EOF and keeps the socket: in OnClose, on
// a read's EOF while HTTP/1 responses are still with their handlers and the
// socket is half-closed by the peer (TCP_INFO: CLOSE_WAIT), it registers a
// duplicate descriptor of the socket on the same loop, as its raw accept
// registers an accepted one (gnetreach_accept_linux.go), and the connection
// goes on there with nothing more to read (intentPeerDone): reading stays
// off while those responses are produced and written; then the connection
// closes as after any last response. gnet closes the old descriptor when
// OnClose returns; the socket lives on in the new one. A FIN that comes
// while the TLS handshake is still running (a client that sends its
// request right behind its Finished) is carried too (intentPeerShut): what
// the client sent is parsed once the handshake is done (advanceTLS).
//
// The handlers' contexts are cancelled at the EOF, as net/http cancels
// them: a FIN does not tell a half-close from a client that left. Their
// exchanges are not ended (exchangeClientShut): a response written whole
// still goes out, and a streamed one goes on until a write fails.
// Requests parked unparsed behind a pause are parsed from the closing
// gnet connection's buffer and answered too (parseParked); those beyond
// MaxPipelined are copied out of it and parsed as the responses before
// them make room, as are TLS requests decrypted beyond it (also those that
// came with a FIN during the handshake) (carriedInputLeft).
//
// gnet turns reading on each time its output drains (readpause.go), on the
// duplicate too; a FIN read there once more while responses are still with
// their handlers moves the connection again (carried).
//
// A WebSocket over HTTP/1 is carried the same way when the peer's FIN (no
// close frame) comes while the callbacks still run messages sent before
// it: the rest of what it sent is parsed and queued, the callbacks' replies
// go out, then an empty close frame, and the transport ends (wsDriver's
// peerShut), as a gorilla/websocket echo loop answers every message read
// before the EOF. OnClose sees 1006.
//
// Costs: nothing until a client half-closes with a response in flight on
// a worker; then a getsockopt, a dup, an epoll_ctl ADD and one MOD.

// tcpCloseWait is the kernel's TCP_CLOSE_WAIT (include/net/tcp_states.h):
// the peer has sent its FIN, this side is still open.
const tcpCloseWait = 8

// outliveReadEOF runs in OnClose. It reports whether the connection was
// moved onto a duplicate of its socket to finish the responses in flight,
// in which case OnClose must leave it alone.
func (c *conn) outliveReadEOF(err error) bool {
	if !c.owedAfterEOF(err) || !peerHalfClosed(c.fd) {
		return false
	}
	parked := c.parkedInput() // asked of gnet's buffer before the move
	again := c.carried()
	l := c.srv.raw.loopOf(c.el)
	if l == nil {
		return false
	}
	nfd, derr := unix.FcntlInt(uintptr(c.fd), unix.F_DUPFD_CLOEXEC, 0)
	if derr != nil {
		return false
	}
	gcp := gnetNewStreamConn("tcp", nfd, l.el, nil, c.gc.LocalAddr(), c.gc.RemoteAddr())
	ngc := gnetConnAt(gcp)
	ngc.SetContext(reopened{c})
	old := c.gc
	// register0 adds nfd to the loop's epoll set and runs OnOpen, here, on
	// the loop (we are in its OnClose). When it fails it has closed nfd.
	if rerr := gnetRegister0(l.el, gcp); rerr != nil || c.gc == old {
		return false
	}
	old.SetContext(nil)
	if again {
		c.beginLoopTask()
		c.finishCallback() // turns reading off again
		return true
	}
	c.srv.pipe.peerHalfCloses.Add(1)
	if ws, ok := c.proto.(*wsDriver); ok {
		c.srv.logDebug("the WebSocket peer shut its side with callbacks running: what they write is finished on a duplicate of the socket", c)
		c.beginLoopTask()
		ws.peerShut(old)
		c.finishCallback() // turns reading off
		return true
	}
	c.srv.logDebug("the client shut its side with responses in flight: they are finished on a duplicate of the socket", c)
	if c.handshaking() {
		// What it sent is parsed when the handshake is done (advanceTLS).
		c.intent = intentPeerShut
		c.beginLoopTask()
		c.finishCallback() // turns reading off
		return true
	}
	d := &c.h1
	if !parked || !c.parseParked(old) {
		c.intent = max(c.intent, intentPeerDone)
		d.dropPartial()
	} // else requests wait behind the cap: intentPeerShut until they are parsed
	c.setPhase(phaseWaiting, 0)
	d.cancelAtClientShut()
	d.onBatchDone() // collects what is done and parses on, or turns reading off
	return true
}

// parseParked parses the requests a half-closed client left parked behind
// a pause (MaxPipelined, MaxOutboundBytes) when gnet read its FIN: gnet's
// re-arm of reading as its output drained lets the FIN past the pause
// (readpause.go). They are in the buffer of old, the connection gnet is
// closing, which goes with it: they are parsed now, synchronously, from
// there (wireIn), and answered on the duplicate. What does not fit in
// flight (MaxPipelined) is copied out of old (carryInput; over TLS what
// was decrypted already stays with the connection) and parsed as the
// responses make room (carriedInputLeft; the intent stays intentPeerShut
// until then). It reports whether requests wait so.
func (c *conn) parseParked(old gnet.Conn) (waiting bool) {
	c.beginLoopTask()
	c.parseFrom(old, func() {
		c.resume()
		if c.paused && !c.closed {
			c.carryInput(old)
		}
	})
	c.parsedAfterPeerShut()
	return c.intent == intentPeerShut
}

// owedAfterEOF: the connection is an HTTP/1 one with responses still to
// come from its handlers or requests parked unparsed, or whose TLS
// handshake is still running (its requests may be in what it sent), or a
// WebSocket whose callbacks still run (callbacksOwedAtFIN), in a state a
// new socket can carry on from (carriable).
func (c *conn) owedAfterEOF(err error) bool {
	if ws, ok := c.proto.(*wsDriver); ok {
		return (*WSConn)(ws).callbacksOwedAtFIN(c.carried()) && c.carriable(err)
	}
	d := &c.h1
	// Most closes have nothing in flight: that is looked at first.
	var owed bool
	switch {
	case c.carried():
		// The FIN read once more, on the duplicate: gnet turns reading on
		// when its output drains (readpause.go). It moves again.
		owed = d.head != nil || c.handshaking() && c.gc.InboundBuffered() == 0
	case d.head != nil || c.parkedInput():
		owed = c.intent <= intentStopReading && (!c.isTLS() || c.established)
	case c.isTLS() && !c.established:
		// All the client sent must be with the handshake: gnet's buffer
		// goes with its connection.
		owed = c.intent == intentServe && c.handshaking() && c.gc.InboundBuffered() == 0
	}
	return owed && c.proto == protocol(d) && !c.shed && c.phase < phaseFlushing &&
		d.detached == nil && d.in == nil && !d.upgrading && c.carriable(err)
}

// carriable: the close is a read's EOF, and a new socket can take over:
// nothing of ours waits in gnet (its close would drop it) or in c.out, the
// loop does not hold the wire, the raw accept's reach registers sockets,
// and the read pause keeps the duplicate from reading the FIN again and
// again (without it each read of the FIN moved the connection once more: a
// loop of dups and registrations, 35,000 in 0.35 s for six connections,
// for as long as their handlers ran).
func (c *conn) carriable(err error) bool {
	return !c.closed && !c.loopHoldsWire && len(c.out) == 0 && c.gc.OutboundBuffered() == 0 &&
		c.srv.raw != nil && errors.Is(err, io.EOF) && c.readPauseAvailable()
}

// carried: the connection was moved past the client's FIN already.
func (c *conn) carried() bool { return c.intent == intentPeerShut || c.intent == intentPeerDone }

// parkedInput: requests wait unparsed behind a pause (MaxPipelined,
// MaxOutboundBytes).
func (c *conn) parkedInput() bool {
	return c.paused && !c.readingStopped() && c.loop != nil && c.inboundBytes() > 0
}

// handshaking: a TLS connection whose handshake has begun and not ended.
func (c *conn) handshaking() bool {
	return c.isTLS() && !c.established && c.tls.State() == tlsstate.Handshaking
}

// carriedPastEOF: a FIN read while responses are in flight does not cost
// them, outliveReadEOF takes the connection past it. (Not while gnet holds
// output, but then reading is off anyway: outputHeldFromEOF. A detached
// response or an upgrade ends at the FIN, keep-alive or not.)
func (c *conn) carriedPastEOF() bool { return c.proto == protocol(&c.h1) && c.srv.raw != nil }

// peerHalfClosed reports whether the peer has shut its side of fd's TCP
// connection and this side can still send (as opposed to a reset, or a
// socket whose state cannot be read).
func peerHalfClosed(fd int) bool {
	info, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
	return err == nil && info.State == tcpCloseWait
}

// reopened is the context a duplicate socket is registered with: OnOpen
// hands it to its connection (onReopen) instead of making a new one.
type reopened struct{ c *conn }

// onReopen is OnOpen for a socket outliveReadEOF registered: the
// connection carries on on it. Workers read fd under wmu (direct.go), a
// WebSocket's writers theirs under its mu (wsdirect.go).
func (s *Server) onReopen(gc gnet.Conn, c *conn) ([]byte, gnet.Action) {
	c.wmu.Lock()
	c.gc, c.fd = gc, gc.Fd()
	c.wmu.Unlock()
	if ws, ok := c.proto.(*wsDriver); ok {
		ws.mu.Lock() // the writers write to ws.fd under it (wsdirect.go)
		ws.fd = c.fd
		ws.mu.Unlock()
	}
	c.readOff = false // gnet registered the new descriptor for reading
	gc.SetContext(c)
	return nil, gnet.None
}

// loopOf returns the raw registration handle of the loop el, or nil.
func (r *rawAcceptor) loopOf(el gnet.EventLoop) *rawLoop {
	if r == nil {
		return nil
	}
	for i := range r.loops {
		if r.loops[i].gel == el {
			return &r.loops[i]
		}
	}
	return nil
}
