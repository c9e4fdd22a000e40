//go:build unix

package engine

import (
	"sync"

	"github.com/panjf2000/gnet/v2"

	"github.com/gwist/gwist/websocket"
)

// wsDriver is the WebSocket protocol driver (driver.go): a WSConn seen
// from the loop. It parses frames from the connection's input, answers
// pings, queues messages for the callbacks (wsevents.go), writes what the
// application queued (wsconn.go), runs the close handshake, and keeps the
// connection alive on the loop's sweep. Loop only.
type wsDriver WSConn

// switchToWS makes ws the connection's driver: the 101 (or the HTTP/2
// answer) is already in c.out. Loop only.
func (c *conn) switchToWS(ws *WSConn) {
	c.h1.releaseParser()
	c.h1.upgrading = false
	ws.reader()
	now := c.srv.now()
	ws.lastRead, ws.lastData = now, now
	ws.openDone = true
	c.srv.wsconns.Add(1)
	c.proto = (*wsDriver)(ws)
	c.paused = false
	c.setPhase(phaseIdle, 0) // no read timer: keepalive is the driver's (tick)
	ws.queue(wsEvent{kind: wsEvOpen}, nil)
	if c.srv.draining.Load() {
		(*wsDriver)(ws).goAway()
	}
}

// serve parses the buffered input: frames into events, until the input
// is used up or the callbacks' queue is full.
func (d *wsDriver) serve() {
	ws := (*WSConn)(d)
	c := ws.c
	if ws.process() {
		c.paused = false
		return
	}
	c.paused = true // the callbacks are behind, or the peer does not read: stop reading the socket
	if in := c.inboundBytes(); in > c.config().MaxInboundBytes {
		c.srv.pipe.inboundCapped.Add(1)
		d.fail(websocket.ClosePolicyViolation, "read queue overflow")
	} else {
		c.srv.pipe.notePeak(in)
	}
}

// process feeds the frame reader from the transport's input and handles
// its events, until the input is used up (true), or the callbacks' queue
// is full or the peer does not read (false: reading pauses). Loop only.
func (ws *WSConn) process() bool {
	ws.c.loopOnly("WSConn.process")
	d := (*wsDriver)(ws)
	defer ws.dropIdleReader()
	ws.lookAtQueues()
	inline := !ws.onWorkers()
	for !ws.readDone() {
		if ws.queueFull && !ws.finalInput || !ws.payPong() {
			return false
		}
		r := ws.reader()
		if ev, ok := r.Next(); ok {
			d.event(ev)
			continue
		}
		if err := r.Err(); err != nil {
			d.fail(err.Code, err.Reason)
			return true
		}
		in := ws.input()
		if len(in) == 0 {
			return true
		}
		if ws.outputFull(inline) && !ws.finalInput && !r.NextIsControl(in) && !ws.writeOutNow(inline) {
			// The peer does not read what is written to it: what it sends
			// would only add to that. Its socket's receive window filling
			// up is its backpressure. Control frames are still taken, so
			// that a ping flood is seen (wsflood.go).
			return false
		}
		n := r.Feed(in)
		if n > 0 {
			ws.consume(n)
			ws.lastRead = ws.c.srv.now()
			ws.pingSent = 0 // anything from the peer shows it is alive
			continue
		}
		if ev, ok := r.Next(); ok {
			d.event(ev)
			continue
		}
		if err := r.Err(); err != nil {
			d.fail(err.Code, err.Reason)
		}
		return true // a partial frame header: wait for the rest
	}
	return true
}

// writeOutNow writes what the writers queued, over HTTP/1, before the read
// pauses for it (outputFull), and reports whether the output then has room
// again. An Inline callback's writes wait in the queue until the loop's
// callback ends, which is after the next message is parsed; without this,
// the loop's own echo of the message before paused every read. While the
// writers hold the socket (wsdirect.go) their queue is theirs to write.
// Loop only.
func (ws *WSConn) writeOutNow(inline bool) bool {
	c := ws.c
	if ws.h2s != nil || c.closed {
		return false
	}
	ws.mu.Lock()
	held := ws.wire == wsWireWriters
	ws.mu.Unlock()
	if held {
		return false
	}
	if ws.writeQueued(); c.closed {
		return false
	}
	return !ws.outputFull(inline)
}

// writeQueued moves what the writers queued to the transport's output
// (flushOut) and, over HTTP/1, writes it to the socket now rather than at
// the end of the loop's callback; a failed write closes the connection.
// Loop only.
func (ws *WSConn) writeQueued() {
	ws.flushOut()
	if ws.h2s == nil {
		ws.c.writeOut()
	}
}

// wsReaderPool holds the frame readers of quiet connections: a Reader
// between frames holds nothing a new one would not (websocket.Reader.Idle),
// so a connection gives it back once its input is used up and takes one
// (Reset) when bytes arrive: the loop's next connection then takes the one
// still in its cache.
var wsReaderPool = sync.Pool{New: func() any { return new(websocket.Reader) }}

// reader returns the connection's frame reader, taking one from the pool
// if it holds none. Loop only.
func (ws *WSConn) reader() *websocket.Reader {
	if ws.r == nil {
		ws.r = wsReaderPool.Get().(*websocket.Reader)
		ws.r.Reset(websocket.Config{MaxFrame: ws.cfg.MaxFrame, MaxMessage: ws.cfg.MaxMessage, Deflate: ws.deflate})
	}
	return ws.r
}

// dropIdleReader gives the reader back when it is between frames and no
// input waits (not with permessage-deflate, whose Reader holds its
// inflater). Loop only.
func (ws *WSConn) dropIdleReader() {
	if r := ws.r; r != nil && ws.deflate == nil && len(ws.input()) == 0 && r.Idle() {
		ws.r = nil
		wsReaderPool.Put(r)
	}
}

// event handles one frame reader event. Loop only.
func (d *wsDriver) event(ev websocket.Event) {
	ws := (*WSConn)(d)
	c := ws.c
	switch ev.Kind {
	case websocket.EventMessage:
		if ws.closing != wsOpen {
			return // closing: data is no longer delivered
		}
		ws.lastData, ws.gotData = c.srv.now(), true
		ws.queueMessage(ev.Opcode, ev.Payload)
	case websocket.EventPing:
		if ws.closing == wsOpen {
			ws.answerPing(ev.Payload)
		}
	case websocket.EventPong:
		ws.pingSent = 0
	case websocket.EventClose:
		code, reason := ev.Code, ev.Reason
		echo := code
		if echo == websocket.CloseNoStatus {
			echo = 0
		}
		if ws.closing == wsOpen && d.answerAfterCallbacks(echo) {
			ws.queueCloseEvent(wsEvent{kind: wsEvClose, code: code, reason: reason, answer: true})
			return
		}
		if ws.closing == wsOpen {
			d.sendClose(echo, "")
		}
		ws.closing = wsCloseDone
		ws.queueClose(code, reason)
		ws.endTransport()
	}
}

// answerAfterCallbacks defers the answer to the peer's close frame while
// the callbacks still run messages queued before it (wsCloseReceived): it
// stops reading (the peer sends nothing after a close frame; over HTTP/1
// the read pause also keeps its FIN from closing the connection first)
// and reports true. With no callbacks running it reports false: the
// answer goes out at once. Loop only.
func (d *wsDriver) answerAfterCallbacks(echo websocket.CloseCode) bool {
	ws := (*WSConn)(d)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if !ws.running || ws.writeDone {
		return false
	}
	ws.closeCode, ws.closeReason = echo, ""
	ws.closing = wsCloseReceived
	ws.closeAt = ws.c.srv.now() + int64(ws.cfg.CloseTimeout)
	if ws.h2s != nil {
		ws.inEnded = true
	} else {
		ws.c.stopReading()
	}
	return true
}

// callbacksOwedAtFIN: the peer's FIN came while the callbacks still run
// messages read before it (over HTTP/1; an HTTP/2 stream ends with its
// connection). again: the connection was carried past a FIN already
// (peerShut), and gnet, its output drained, read the FIN once more.
// Loop only.
func (ws *WSConn) callbacksOwedAtFIN(again bool) bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	want := wsOpen
	if again {
		want = wsCloseReceived
	}
	return ws.h2s == nil && ws.closing == want && ws.running && !ws.writeDone
}

// holdsReadsForOutput: reading waits while gnet holds this WebSocket's
// output (outputHeldFromEOF) once its peer has sent data, whose replies
// are what that output is. Loop only.
func (ws *WSConn) holdsReadsForOutput() bool { return ws.gotData }

// peerShut: the peer shut its write side (a FIN without a close frame)
// while the callbacks still ran messages it sent before, and the
// connection was carried onto a duplicate of its socket
// (peerdone_linux.go). What it sent and the loop had not parsed yet (the
// read paused behind the callbacks) is in old, the gnet connection being
// closed: it is parsed now and queued whole. Then, as for a close frame,
// the callbacks' replies go out first, an empty close frame after them,
// and the transport ends; OnClose sees 1006, for no close frame came.
// Were the callbacks done meanwhile, it ends now. Loop only.
func (d *wsDriver) peerShut(old gnet.Conn) {
	ws := (*WSConn)(d)
	c := ws.c
	if c.loop != nil && old.InboundBuffered() > 0 {
		c.parseFrom(old, func() {
			ws.finalInput = true
			ws.process()
			ws.finalInput = false
		})
	}
	switch {
	case ws.closing != wsOpen:
		// A close frame was in what it sent: that handshake goes on.
	case d.answerAfterCallbacks(0):
		ws.queueCloseEvent(wsEvent{kind: wsEvClose, code: websocket.CloseAbnormal, answer: true})
	default:
		ws.closing = wsCloseDone
		ws.queueClose(websocket.CloseAbnormal, "")
		ws.endTransport()
		return
	}
	c.intent = max(c.intent, intentPeerDone) // carried: a FIN read again moves it again
}

// fail answers a protocol violation: the close frame with its code, then
// the connection closes without waiting for the peer's. Loop only.
func (d *wsDriver) fail(code websocket.CloseCode, reason string) {
	ws := (*WSConn)(d)
	c := ws.c
	c.srv.logDebug("WebSocket protocol error: "+reason, c)
	d.sendClose(code, reason)
	ws.queueClose(code, reason)
	ws.endTransport()
}

// sendClose queues a close frame after what the application queued; code
// 0 sends an empty close frame. Nothing is written after it. Loop only.
func (d *wsDriver) sendClose(code websocket.CloseCode, reason string) {
	ws := (*WSConn)(d)
	ws.mu.Lock()
	ws.writeDone = true
	ws.closeReq = false // superseded: one close frame only
	ws.wakeWriters()
	ws.mu.Unlock()
	d.flushOut()
	if ws.closing != wsOpen && ws.closing != wsCloseReceived {
		return
	}
	out := ws.outBuf()
	*out = appendCloseFrame(*out, code, reason)
	ws.pumpOut()
	ws.closeSent()
}

func (d *wsDriver) flushOut() { (*WSConn)(d).flushOut() }

// collect: nothing of a WebSocket is collected from workers; writes are
// flushed at endCallback.
func (d *wsDriver) collect() {}

func (d *wsDriver) collectSettled() bool { return false }

// endCallback writes what the application queued, with the callback's own
// output (pongs, close frames).
func (d *wsDriver) endCallback() {
	if !d.c.closed {
		(*WSConn)(d).flush(true) // hold: the writers may hold the socket (wsdirect.go)
	}
}

// writable: wake the writers blocked on the cap once there is room.
func (d *wsDriver) writable() { (*WSConn)(d).noteBacklog() }

// tick runs at every sweep: keepalive, the idle timeout, the close
// handshake's deadline, the drain, and a refused hand-off to the workers.
func (d *wsDriver) tick(now int64) {
	ws := (*WSConn)(d)
	ws.retryCallbacks()
	if ws.c.closed {
		return
	}
	ws.keepalive(now)
	if c := ws.c; len(c.out) == 0 {
		c.out = nil // an idle WebSocket holds no output buffer
	}
}

// keepalive: the sweep's look at one WebSocket (over HTTP/1 or an HTTP/2
// stream). Loop only.
func (ws *WSConn) keepalive(now int64) {
	d := (*wsDriver)(ws)
	c := ws.c
	ws.trimEvents()
	if ws.closing != wsOpen {
		if ws.closing == wsCloseReceived && now >= ws.closeAt {
			// The callbacks before the close took too long: answer now.
			c.srv.logDebug("WebSocket: callbacks still running at the peer's close; answering it", c)
			ws.mu.Lock()
			code := ws.closeCode
			ws.mu.Unlock()
			d.sendClose(code, "")
			return
		}
		if ws.closing == wsCloseSent && ws.closeAt != 0 && now >= ws.closeAt {
			// The peer did not answer (or does not read): close without
			// waiting for what it has not taken.
			c.srv.logDebug("WebSocket: no close frame from the peer in time", c)
			ws.abortTransport()
		}
		return
	}
	if c.srv.draining.Load() {
		d.goAway()
		return
	}
	cfg := ws.cfg
	if ws.pingSent != 0 && now-ws.pingSent >= int64(cfg.PongTimeout) {
		c.srv.logDebug("WebSocket: no pong in time", c)
		ws.queueClose(websocket.CloseAbnormal, "no pong")
		ws.abortTransport()
		return
	}
	if cfg.IdleTimeout > 0 && now-ws.lastData >= int64(cfg.IdleTimeout) {
		d.sendClose(websocket.CloseGoingAway, "idle timeout")
		return
	}
	if ws.pongStalled(now) {
		return
	}
	ws.payPong()
	if cfg.PingInterval > 0 && ws.pingSent == 0 && now-ws.lastRead >= int64(cfg.PingInterval) {
		d.flushOut()
		out := ws.outBuf()
		*out = websocket.AppendFrame(*out, websocket.OpPing, true, nil)
		ws.pumpOut()
		ws.pingSent = now
	}
}

// queued: frames wait in the writers' queue (wsconn.go), where the
// loop's own frames go while a worker holds the write side (wsdirect.go
// holdLoopOutputLocked). A close waits for them: its FIN must not overtake the
// close frame queued there. The queue's hand-over to the loop, or the
// worker's release of the write side, brings the loop back to close.
func (d *wsDriver) queued() bool {
	ws := (*WSConn)(d)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.queuedLen > 0
}

// quiet: a WebSocket is never idle in the HTTP sense (the idle timer and
// the drain's idle close do not apply; tick does both).
func (d *wsDriver) quiet() bool { return false }

// readTimeout: WebSocket has no partial requests to time out.
func (d *wsDriver) readTimeout() bool { return false }

// goAway sends close 1001 (the server is going away) and waits for the
// peer's close frame (tick bounds the wait).
func (d *wsDriver) goAway() {
	if (*WSConn)(d).closing == wsOpen {
		d.sendClose(websocket.CloseGoingAway, "server shutting down")
	}
}

// close runs from OnClose: writers fail from now on, OnClose is queued if
// it was not, and the connection leaves its hubs.
func (d *wsDriver) close() { (*WSConn)(d).gone() }

// gone: the transport (the connection, or the HTTP/2 stream) is gone.
// Loop only.
func (ws *WSConn) gone() {
	c := ws.c
	ws.mu.Lock()
	ws.isGone, ws.writeDone = true, true
	ws.giveBuf()
	if ws.deflater != nil {
		ws.deflater.Release()
	}
	ws.shared = nil
	ws.queuedLen = 0
	ws.wakeWriters()
	hubs := ws.hubs
	ws.hubs = nil
	ws.mu.Unlock()
	ws.dropSpares()
	for _, h := range hubs {
		h.Remove(ws)
	}
	if ws.r != nil {
		wsReaderPool.Put(ws.r)
		ws.r = nil
	}
	if s := ws.h2s; s != nil && len(ws.h2in) > 0 && !s.freed {
		s.d.h2.Consumed(s.id, len(ws.h2in)) // give the connection's window back
	}
	ws.h2in = nil
	ws.queueClose(websocket.CloseAbnormal, "")
	if ws.openDone {
		ws.openDone = false
		c.srv.wsconns.Add(-1)
	}
}
