//go:build unix

package engine

import (
	"net"
	"sync"
	"time"

	"github.com/panjf2000/gnet/v2"
)

// connPhase is where a connection is in its life; it selects which timer
// applies and what input means.
type connPhase uint8

const (
	phaseIdle     connPhase = iota // nothing of a request received; idle timer
	phaseHead                      // part of a request head received; header timer
	phaseBody                      // head done, body arriving; body timer
	phaseWaiting                   // requests in flight, nothing partial; no read timer
	phaseFlushing                  // last response queued; close once it has left
	phaseLinger                    // write side shut; discarding input until EOF or linger timeout
)

// conn is one connection's lifecycle: its socket, TLS, phase and timer,
// read pause, write side and close. The protocol spoken on it is its
// driver's (driver.go). Loop only, except the immutable fields (srv, el,
// remote) that workers read and the write side under wmu (direct.go).
// (remote is set once more, on a PROXY protocol listener, before the first
// request exists: proxy.go.)
type conn struct {
	srv    *Server
	gc     gnet.Conn
	el     gnet.EventLoop
	fd     int
	loop   *loopState
	slot   int // index in loop.conns
	remote net.Addr

	// proto is the protocol driver (driver.go): &h1 for HTTP/1.
	proto protocol
	h1    h1Driver

	out []byte // bytes the driver leaves to write at the end of the callback

	deadline int64 // Server.clock units (unix ns); 0 = none
	// obMark is gnet's outbound size when the loop last looked, sqMark
	// the kernel's send queue at the last sweep, and wprogress when
	// either last moved (writetimeout.go).
	obMark, sqMark int
	wprogress      int64
	drainIdleSince int64 // unix ns of the first drain sweep that found it idle (drain.go)

	// *tlsConn is the HTTPS state, nil for plaintext connections (out of
	// line: an idle plaintext connection is smaller for it).
	*tlsConn

	// Shared with workers writing directly (see direct.go).
	wmu      sync.Mutex
	wclosed  bool // OnClose ran: the fd is no longer ours
	wpending bool // TLS: gnet holds ciphertext we wrote, not yet sent
	// loopHoldsWire (loop only): the loop holds wmu, so OnClose, which a
	// failed write runs synchronously, must not take it again.
	loopHoldsWire bool

	// The one-byte fields last, together: with the fields above they fit
	// Go's 288-byte size class.
	phase connPhase
	// intent is how the connection is to end (closeintent.go).
	intent     closeIntent
	paused     bool
	closed     bool
	inCallback bool
	closeAtEnd bool // the callback returns gnet.Close
	// readOff: EPOLLIN is out of the fd's registration (readpause.go);
	// noReadPause: the pause failed for this connection, the cap applies.
	readOff, noReadPause bool
	// shed: accepted beyond the ConnLimit, to be answered 503 (shed.go).
	shed bool
}

// newConn makes the state of a connection gnet opened, speaking HTTP/1
// until a driver takes over.
func newConn(s *Server, gc gnet.Conn) *conn {
	c := &conn{srv: s, gc: gc, el: gc.EventLoop(), fd: gc.Fd(), remote: gc.RemoteAddr()}
	c.h1.c = c
	c.proto = &c.h1
	return c
}

func (c *conn) config() *Config { return &c.srv.cfg }

// isTLS reports whether c is an HTTPS connection. (Test it before any of
// tlsConn's fields: they are not there for plaintext.)
func (c *conn) isTLS() bool { return c.tlsConn != nil }

// loopOnly asserts, in test builds (loopcheck_on.go), that the caller runs
// on c's loop.
func (c *conn) loopOnly(what string) {
	if c == nil {
		return
	}
	if l := c.loop; l != nil {
		l.g.check(what)
	}
}

// onTraffic handles readable input. Called from OnTraffic.
func (c *conn) onTraffic() gnet.Action {
	c.loopOnly("onTraffic")
	c.inCallback, c.closeAtEnd = true, false
	c.readResumedByGnet()
	c.noteDrain()
	c.proto.collectSettled()
	if c.isTLS() {
		c.onTLSTraffic()
	} else if c.readingStopped() {
		_, _ = c.gc.Discard(-1)
	} else {
		c.proto.serve()
	}
	c.finishCallback()
	c.inCallback = false
	if c.closeAtEnd {
		return gnet.Close
	}
	return gnet.None
}

// finishCallback writes what the callback produced, moves the connection
// to its next phase, and pauses or resumes reading to match.
func (c *conn) finishCallback() {
	c.loopOnly("finishCallback")
	if c.closed {
		return
	}
	c.noteDrain()
	c.finishOutput()
	if !c.closed {
		c.proto.writable()
	}
	if !c.closed { // writable may flush, and a failed write closes
		c.markOutbound()
		c.syncReadPause()
	}
}

func (c *conn) finishOutput() {
	c.proto.endCallback()
	if c.isTLS() {
		defer c.endTLSCallback()
		defer c.releasePlainIfEmpty()
	}
	if c.writeOut(); c.closed { // a failed write closes the connection synchronously
		return
	}
	// queued() is asked last: a WebSocket's takes its lock, and a
	// WebSocket is never quiet, so its messages do not pay for it.
	if c.closingWhenDone() {
		if !c.proto.queued() {
			c.startClose()
		}
		return
	}
	if c.phase == phaseWaiting && c.proto.quiet() && !c.proto.queued() {
		// During a drain the sweep closes it after a grace (drain.go).
		c.setPhase(phaseIdle, c.config().IdleTimeout)
	}
}

// writeOut writes c.out to the wire and empties it (a large one is let go:
// an output buffer keeps at most 64 KiB between callbacks).
func (c *conn) writeOut() {
	if len(c.out) == 0 {
		return
	}
	c.writeWire(c.out)
	if cap(c.out) > 64<<10 {
		c.out = nil
	} else {
		c.out = c.out[:0]
	}
}

// startClose begins "respond, then close": once output has left, shut the
// write side and linger for the client's EOF.
func (c *conn) startClose() {
	if c.phase == phaseLinger {
		return
	}
	if c.isTLS() {
		c.closeTLS()
		if c.closed {
			return
		}
	}
	if c.gc.OutboundBuffered() > 0 {
		c.setPhase(phaseFlushing, c.config().IdleTimeout)
		return
	}
	shutdownWrite(c.gc.Fd())
	c.setPhase(phaseLinger, lingerTimeout)
}

// abort closes the connection without waiting for output.
func (c *conn) abort() {
	c.stopReading()
	c.closeNow()
}

func (c *conn) closeNow() {
	if c.closed {
		return
	}
	if c.inCallback {
		c.closeAtEnd = true
		return
	}
	_ = c.el.Close(c.gc)
}

// setPhase enters phase p with its timer. The clock is the server's coarse
// one (a tick's resolution, like the sweeps that check it): time.Now per
// request costs more than parsing the request on some virtual machines.
func (c *conn) setPhase(p connPhase, timeout time.Duration) {
	c.phase = p
	if timeout > 0 {
		c.deadline = c.srv.now() + int64(timeout)
	} else {
		c.deadline = 0
	}
}

// onClose runs from gnet's OnClose: the driver cancels what is in flight
// and frees what the loop owns; work still on workers is released when it
// comes back.
func (c *conn) onClose() {
	c.closed = true
	if c.loopHoldsWire { // a failed gc.Write under lockWire closed us
		c.wclosed = true
	} else {
		c.wmu.Lock()
		c.wclosed = true
		c.wmu.Unlock()
	}
	c.proto.close()
	c.out = nil
	if c.isTLS() {
		c.releaseTLS()
	}
}

// beginLoopTask starts work the loop does outside a gnet callback (a
// worker's result, the sweep): output is written by finishCallback.
func (c *conn) beginLoopTask() {
	c.loopOnly("a loop task")
	c.inCallback, c.closeAtEnd = false, false
	c.noteDrain()
}

// collectSettled finishes work a worker settled, outside any gnet
// callback (the sweep).
func (c *conn) collectSettled() {
	c.beginLoopTask()
	if c.proto.collectSettled() {
		c.finishCallback()
	}
}

// onTimer runs from the loop's sweep; now is the sweep's clock.
func (c *conn) onTimer(now int64) {
	if c.closed {
		return
	}
	c.collectSettled()
	if c.closed {
		return
	}
	if c.writeStalled(now) {
		c.srv.pipe.writeTimeouts.Add(1)
		c.srv.logDebug("write timeout: the client has not read its responses", c)
		c.abort()
		return
	}
	if c.resumeIfPaused() {
		c.finishCallback()
		if c.closed {
			return
		}
	}
	c.proto.writable()
	if c.proto.tick(now); len(c.out) > 0 {
		c.beginLoopTask()
		c.finishCallback()
		if c.closed {
			return
		}
	}
	if c.phase == phaseFlushing && c.gc.OutboundBuffered() == 0 {
		c.startClose()
		return
	}
	if c.deadline == 0 || now < c.deadline {
		c.trimIdleTLS()
		return
	}
	switch c.phase {
	case phaseHead, phaseBody:
		if c.phase == phaseBody {
			c.srv.pipe.bodyTimeouts.Add(1)
		}
		if c.proto.readTimeout() {
			c.finishCallback()
			return
		}
		c.closeNow()
	case phaseIdle:
		c.closeIdle()
	default:
		c.closeNow()
	}
}

// closeIdle closes a connection the server no longer wants while it is
// idle (its idle timeout, a drain), after the protocol's goodbye, if it has
// one (HTTP/2's GOAWAY).
func (c *conn) closeIdle() {
	if c.closed {
		return
	}
	c.proto.goAway()
	if len(c.out) > 0 {
		c.writeWire(c.out)
		c.out = c.out[:0]
	}
	c.closeNow()
}
