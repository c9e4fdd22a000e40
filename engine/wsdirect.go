//go:build unix

package engine

import "github.com/gwist/gwist/websocket"

// Direct WebSocket writes: while a worker runs a connection's callbacks,
// the connection's writers may write their frames to the socket
// themselves, as HTTP/1's direct batches do (direct.go), instead of
// handing each message to the loop. An echo then costs one crossing (the
// loop hands the message to a worker) where it cost two.
//
// The loop grants the write side when it hands the callbacks to a worker
// and nothing of the connection waits to be written: not in c.out, not in
// gnet's buffer, not in the writers' queue. While it is granted:
//
//   - A writer holding ws.mu writes its frame to the fd (ws.fd) if
//     nothing is queued before it; otherwise it queues as usual. The fd is
//     the connection's while writeDone is false: OnClose sets it (gone)
//     under ws.mu before gnet closes the fd, so the writers need neither
//     c.wmu nor the conn's lines, which stay on the loop's core. What the
//     socket does not take is queued, and the grant ends at once: the loop
//     writes the rest, and the writers wait for room as usual.
//   - The loop writes nothing to the socket: flushOut leaves the queue and
//     marks that the loop's own frames (pongs, close frames, pings) are
//     about to go into c.out (loopOut: writers then queue behind them, so a
//     frame the socket takes only in part is never overtaken), and the
//     driver's end of callback moves them to the writers' queue
//     (holdLoopOutputLocked).
//   - A writer that must wait for room ends the grant first, so that the
//     loop drains the queue.
//   - When the callbacks' queue runs empty, the worker ends the grant and
//     hands the queue to the loop only if something is in it. An echo's
//     worker writes and goes, and the loop is not woken.
//
// Only for WebSocket over plaintext HTTP/1.1 on the worker pool, with
// worker writes on (gnetreach_fd.go): over TLS the loop encrypts under
// wmu and may close the connection while holding it, and an HTTP/2
// stream's frames are the HTTP/2 driver's.

// wsWire says who writes a WebSocket's frames to the socket. Under ws.mu.
type wsWire uint8

const (
	// wsWireLoop: writers queue, the loop writes (wsFlush).
	wsWireLoop wsWire = iota
	// wsWireWriters: granted while a worker runs the callbacks; writers
	// write to the socket themselves.
	wsWireWriters
)

// grantWire grants the write side to the writers before the callbacks go
// to a worker, when the connection allows it and nothing waits. Loop only.
func (ws *WSConn) grantWire() {
	if !ws.wireGrantable() {
		return
	}
	ws.mu.Lock()
	ws.grantWireLocked()
	ws.mu.Unlock()
}

// wireGrantable: the loop's half of grantWire's conditions (the transport,
// and nothing of the loop's waiting to be written). Loop only.
func (ws *WSConn) wireGrantable() bool {
	c := ws.c
	// (c is set: the connection is on the loop, so nc is nil.)
	return ws.h2s == nil && !c.isTLS() && fdWriteReach.on() &&
		len(c.out) == 0 && c.gc.OutboundBuffered() == 0 && ws.closing == wsOpen
}

// grantWireLocked is grantWire's half under mu, once wireGrantable said
// yes: nothing of the writers' waits either.
func (ws *WSConn) grantWireLocked() {
	if ws.queuedLen == 0 && !ws.closeReq && !ws.writeDone && !ws.handoff.queued {
		ws.wire = wsWireWriters
	}
}

// mayWriteDirect: the writers hold the socket and nothing waits before a
// new frame. Called with mu held.
func (ws *WSConn) mayWriteDirect() bool {
	return ws.wire == wsWireWriters && ws.queuedLen == 0 && !ws.loopOut
}

// releaseWire ends the grant and hands what was queued meanwhile to the
// loop. Called with mu held.
func (ws *WSConn) releaseWire() {
	if ws.wire != wsWireWriters {
		return
	}
	ws.wire, ws.loopOut = wsWireLoop, false
	if ws.queuedLen > 0 || ws.closeReq {
		ws.schedule()
	}
}

// wsStackFrameData is the largest message a direct writer frames on its
// stack (write); a bigger one is framed in ws.buf.
const wsStackFrameData = 1024 - websocket.MaxHeaderLen

// sendDirect writes frame (on the writer's stack, a shared frame, or in
// ws.buf, which held nothing before it) to the socket while the write
// side is granted. What the socket does not take is queued in ws.buf and
// the grant ends. Called with mu held and writeDone false (the fd is
// still the connection's: see above).
func (ws *WSConn) sendDirect(frame []byte) error {
	rest, err := writeFD(ws.fd, frame)
	if err != nil {
		// The loop sees the socket fail and closes the connection.
		ws.buf = ws.buf[:0]
		ws.wire = wsWireLoop
		return ErrWSClosed
	}
	if len(rest) == 0 {
		if len(ws.buf) > 0 {
			ws.buf = ws.buf[:0]
		}
		ws.directWrites.Add(1)
		return nil
	}
	ws.takeBuf()
	ws.buf = append(ws.buf[:0], rest...) // rest may be in buf: append moves
	ws.queuedLen = len(ws.buf)
	ws.releaseWire()
	return nil
}

// holdLoopOutputLocked moves the loop's own frames from c.out to the
// writers' queue while the writers hold the write side, so that the loop
// does not write behind their back; the grant's end hands them back.
// Called on the loop (the driver's endCallback, through flush) with mu
// held and the write side granted.
func (ws *WSConn) holdLoopOutputLocked() {
	c := ws.c
	ws.loopOut = false
	if len(c.out) == 0 {
		return
	}
	ws.takeBuf()
	ws.buf = append(ws.buf, c.out...)
	ws.queuedLen += len(c.out)
	c.out = c.out[:0]
}
