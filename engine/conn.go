//go:build unix

package engine

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"

	"github.com/gwist/gwist/http1"
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

// conn is one connection's state. Loop only, except the immutable fields
// (srv, el, remote) that workers read.
type conn struct {
	srv    *Server
	gc     gnet.Conn
	el     gnet.EventLoop
	fd     int
	loop   *loopState
	slot   int // index in loop.conns
	remote net.Addr

	parser *http1.Parser // nil while idle (parsers.go)
	cur    *Exchange     // request being parsed

	// head and tail of the batches whose responses are not yet written, in
	// request order; building is the batch being filled in this callback.
	head, tail *batch
	building   *batch
	inflight   int // requests parsed and not yet answered

	out []byte // bytes to write at the end of the current callback

	// grantWait: a streaming batch waiting for the write side (outbound.go).
	grantWait *grantReq

	phase    connPhase
	deadline int64 // Server.clock units (unix ns); 0 = none
	// stopReading: no further requests are parsed (after a framing error, a
	// request without keep-alive, or a drain); input is discarded.
	stopReading bool
	// closeWhenDone: close once every queued response has been written.
	closeWhenDone bool
	paused        bool
	closed        bool
	inCallback    bool
	action        gnet.Action

	// readOff: EPOLLIN is out of the fd's registration (readpause.go);
	// noReadPause: the pause failed for this connection, the cap applies.
	readOff, noReadPause bool
	// obMark is gnet's outbound size when the loop last looked, sqMark
	// the kernel's send queue at the last sweep, and wprogress when
	// either last moved (writetimeout.go).
	obMark, sqMark int
	wprogress      int64

	tlsConn // HTTPS state; zero for plaintext connections

	drainIdleSince int64 // unix ns of the first drain sweep that found it idle (drain.go)

	// Shared with workers writing directly (see direct.go).
	wmu      sync.Mutex
	wclosed  bool // OnClose ran: the fd is no longer ours
	wpending bool // TLS: gnet holds ciphertext we wrote, not yet sent
	// loopHoldsWire (loop only): the loop holds wmu, so OnClose, which a
	// failed write runs synchronously, must not take it again.
	loopHoldsWire bool
}

func (c *conn) config() *Config { return &c.srv.cfg }

// onTraffic handles readable input. Called from OnTraffic.
func (c *conn) onTraffic() gnet.Action {
	c.inCallback, c.action = true, gnet.None
	c.readResumedByGnet()
	c.noteDrain()
	if c.collectDirect() {
		c.flushReady()
	}
	if c.tls != nil {
		c.onTLSTraffic()
	} else if c.stopReading {
		_, _ = c.gc.Discard(-1)
	} else {
		c.process()
	}
	c.finishCallback()
	c.inCallback = false
	return c.action
}

// process parses as many complete requests as the buffered input holds and
// the connection's in-flight budget allows, serving or dispatching each.
func (c *conn) process() {
	cfg := c.config()
	for !c.closed && !c.stopReading {
		if c.inflight >= cfg.MaxPipelined || c.gc.OutboundBuffered() > cfg.MaxOutboundBytes {
			c.paused = true
			if in := c.inboundBytes(); in > cfg.MaxInboundBytes {
				// Abuse (the read pause keeps honest clients far below):
				// answer what is in flight, then close.
				c.srv.logDebug("closing connection over its inbound buffer cap", c)
				c.srv.pipe.inboundCapped.Add(1)
				c.stopReading, c.closeWhenDone = true, true
				c.discardInput()
			} else {
				c.srv.pipe.notePeak(in)
			}
			break
		}
		c.paused = false
		buf := c.input()
		if len(buf) == 0 {
			break
		}
		if c.cur == nil {
			c.cur = getExchange(c.remote)
			if c.phase == phaseIdle || c.phase == phaseWaiting {
				c.setPhase(phaseHead, cfg.HeaderReadTimeout)
			}
		}
		n, ev, err := c.takeParser().Parse(&c.cur.Request, buf)
		c.consume(n)
		if err != nil {
			c.failRequest(err)
			break
		}
		switch ev {
		case http1.NeedMore:
			c.submitBuilding()
			return
		case http1.HeadComplete:
			c.setPhase(phaseBody, cfg.BodyReadTimeout)
			if c.cur.Request.Expect100 {
				c.emit(http1.AppendContinue(nil))
			}
		case http1.MessageComplete:
			ex := c.cur
			c.cur = nil
			c.setPhase(phaseWaiting, 0)
			if !ex.Request.KeepAlive || c.srv.draining.Load() {
				c.stopReading = true
			}
			c.dispatch(ex)
		}
	}
	c.submitBuilding()
}

// dispatch serves ex inline or adds it to the batch for a worker.
func (c *conn) dispatch(ex *Exchange) {
	c.inflight++
	if c.config().Inline {
		c.srv.serve(ex)
		keep := ex.Request.KeepAlive && !ex.wantsClose() && !c.srv.draining.Load()
		c.out = ex.appendResponse(c.out, keep, c.config().ServerName)
		putExchange(ex)
		c.inflight--
		if !keep {
			c.stopReading, c.closeWhenDone = true, true
		}
		return
	}
	if c.building == nil {
		c.building = getBatch(c)
	}
	c.building.exs = append(c.building.exs, ex)
}

// submitBuilding queues the batch filled in this callback and hands it to a
// worker, or answers it with 503 when every worker is busy.
func (c *conn) submitBuilding() {
	b := c.building
	if b == nil {
		return
	}
	c.building = nil
	b.reqs = len(b.exs)
	b.direct = c.canWriteDirect(b)
	if b.direct && c.tls != nil && !c.responded {
		c.responded, b.firstTLS = true, true
	}
	c.enqueue(b)
	if err := c.config().Workers.submit(b); err != nil {
		// One 503 (it says Connection: close) sheds this connection's load;
		// the other requests of the batch are dropped with it.
		b.out = http1.AppendError(b.out, 503, 1)
		b.closeAfter = true
		b.done = true
		c.srv.logDebug("worker pool full; answered 503", c)
		c.flushReady()
	}
}

func (c *conn) enqueue(b *batch) {
	if c.tail == nil {
		c.head, c.tail = b, b
	} else {
		c.tail.next = b
		c.tail = b
	}
}

// emit queues bytes that are not a handler's response (100 Continue, error
// responses) in their place in the response order.
func (c *conn) emit(p []byte) {
	c.submitBuilding()
	if c.head == nil {
		c.out = append(c.out, p...)
		return
	}
	b := getBatch(c)
	b.out = append(b.out, p...)
	b.done = true
	c.enqueue(b)
}

// failRequest answers a framing or limit violation and closes: nothing sent
// after it on this connection is executed.
func (c *conn) failRequest(err error) {
	status := 400
	var perr *http1.Error
	if errors.As(err, &perr) {
		status = perr.Status
	}
	if c.cur != nil {
		putExchange(c.cur)
		c.cur = nil
	}
	c.stopReading = true
	c.closeWhenDone = true
	c.emit(http1.AppendError(nil, status, 0))
	c.discardInput()
}

// onBatchDone runs on the loop when a worker hands a batch back.
func (c *conn) onBatchDone() {
	if c.closed {
		c.releaseFinished()
		return
	}
	c.inCallback, c.action = false, gnet.None
	c.noteDrain()
	c.flushReady()
	if c.paused && !c.closed && !c.stopReading {
		c.resume()
	}
	c.finishCallback()
}

// flushReady moves the responses of finished batches at the head of the
// queue, in order, to the output.
func (c *conn) flushReady() {
	for c.head != nil && c.head.done {
		b := c.head
		c.head = b.next
		if c.head == nil {
			c.tail = nil
		}
		switch {
		case b.writeErr != nil:
			c.srv.logDebug("write failed: "+b.writeErr.Error(), c)
			c.abort()
		case b.cipher:
			// A worker's ciphertext that did not fit the socket: it goes
			// first (c.out was empty when the batch was queued).
			c.writeCipher(b.out)
		default:
			c.out = append(c.out, b.out...)
		}
		c.inflight -= b.reqs
		if b.closeAfter {
			c.stopReading, c.closeWhenDone = true, true
		}
		b.release()
	}
}

// releaseFinished releases done batches of a closed connection.
func (c *conn) releaseFinished() {
	for c.head != nil && c.head.done {
		b := c.head
		c.head = b.next
		b.release()
	}
	if c.head == nil {
		c.tail = nil
	}
}

// finishCallback writes what the callback produced, moves the connection
// to its next phase, and pauses or resumes reading to match.
func (c *conn) finishCallback() {
	if c.closed {
		return
	}
	c.noteDrain()
	ob := c.gc.OutboundBuffered()
	c.finishOutput()
	if c.grantWait != nil && !c.closed {
		c.tryGrant()
	}
	if !c.closed {
		c.markOutbound()
		c.syncReadPause(ob)
	}
}

func (c *conn) finishOutput() {
	c.releaseIdleParser()
	if c.tls != nil {
		defer c.endTLSCallback()
		defer c.releasePlainIfEmpty()
	}
	if c.head != nil && (c.head.next != nil || c.paused || c.closeWhenDone) && c.collectDirect() {
		c.flushReady() // the loop needs the head back: do not leave it to the sweep
	}
	if len(c.out) > 0 {
		c.writeWire(c.out)
		if cap(c.out) > 64<<10 {
			c.out = nil
		} else {
			c.out = c.out[:0]
		}
		if c.closed { // a failed write closes the connection synchronously
			return
		}
	}
	if c.head != nil || c.building != nil {
		return
	}
	if c.closeWhenDone {
		c.startClose()
		return
	}
	if c.cur == nil && c.inflight == 0 && c.phase == phaseWaiting {
		// During a drain the sweep closes it after a grace (drain.go).
		c.setPhase(phaseIdle, c.config().IdleTimeout)
	}
}

// startClose begins "respond, then close": once output has left, shut the
// write side and linger for the client's EOF.
func (c *conn) startClose() {
	if c.phase == phaseLinger {
		return
	}
	if c.tls != nil {
		c.closeTLS()
		if c.closed {
			return
		}
	}
	if c.gc.OutboundBuffered() > 0 {
		c.setPhase(phaseFlushing, c.config().IdleTimeout)
		return
	}
	_ = unix.Shutdown(c.gc.Fd(), unix.SHUT_WR)
	c.setPhase(phaseLinger, lingerTimeout)
}

// abort closes the connection without waiting for output.
func (c *conn) abort() {
	c.stopReading = true
	c.closeNow()
}

func (c *conn) closeNow() {
	if c.closed {
		return
	}
	if c.inCallback {
		c.action = gnet.Close
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

// onClose runs from gnet's OnClose: cancel what is in flight and free what
// the loop owns. Batches still on workers are released when they come back.
func (c *conn) onClose() {
	c.closed = true
	if c.loopHoldsWire { // a failed gc.Write under lockWire closed us
		c.wclosed = true
	} else {
		c.wmu.Lock()
		c.wclosed = true
		c.wmu.Unlock()
	}
	c.collectDirect()
	for b := c.head; b != nil; b = b.next {
		if !b.done && !b.settling() {
			for _, ex := range b.exs {
				ex.cancel.cancel(context.Canceled)
			}
		}
	}
	c.releaseFinished()
	if c.building != nil {
		c.building.release()
		c.building = nil
	}
	if c.cur != nil {
		putExchange(c.cur)
		c.cur = nil
	}
	c.releaseParser()
	c.out = nil
	if c.tls != nil {
		c.releaseTLS()
	}
}

// collectSettled finishes a batch its worker settled, outside any gnet
// callback (the sweep).
func (c *conn) collectSettled() {
	if c.collectDirect() {
		c.noteDrain()
		c.inCallback, c.action = false, gnet.None
		c.flushReady()
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
	if c.paused && !c.stopReading {
		c.resume()
		c.finishCallback()
		if c.closed {
			return
		}
	}
	c.tryGrant()
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
		if c.head == nil && c.building == nil {
			c.stopReading, c.closeWhenDone = true, true
			if c.cur != nil {
				putExchange(c.cur)
				c.cur = nil
			}
			c.out = http1.AppendError(c.out, 408, 0)
			c.finishCallback()
			return
		}
		c.closeNow()
	default:
		c.closeNow()
	}
}
