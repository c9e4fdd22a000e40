//go:build unix

package engine

import (
	"context"
	"log/slog"
	"runtime/debug"
	"sync"

	"github.com/gwist/gwist/websocket"
)

// The callbacks' queue: the loop appends the connection's events (open,
// messages, close) and one worker at a time takes them in order and runs
// the handler, so a connection's callbacks never overlap and never
// reorder, and a connection with nothing to say holds no goroutine. The
// queue is bounded (WSConfig.MaxReadQueue, MaxReadQueueBytes): beyond it
// the driver stops reading the socket until the worker catches up.

type wsEventKind uint8

const (
	wsEvOpen wsEventKind = iota + 1
	wsEvMessage
	wsEvClose
)

type wsEvent struct {
	kind   wsEventKind
	op     websocket.Opcode
	code   websocket.CloseCode
	data   *[]byte // a message's payload (pooled)
	reason string
}

var wsPayloadPool = sync.Pool{New: func() any { return new([]byte) }}

// queueMessage copies a received message for the callbacks. Loop only.
func (ws *WSConn) queueMessage(op websocket.Opcode, payload []byte) {
	p := wsPayloadPool.Get().(*[]byte)
	*p = append((*p)[:0], payload...)
	ws.queue(wsEvent{kind: wsEvMessage, op: op, data: p})
}

// queueClose queues OnClose, once; nothing is queued after it. Loop only.
func (ws *WSConn) queueClose(code websocket.CloseCode, reason string) {
	ws.mu.Lock()
	done := ws.closedEv
	ws.closedEv = true
	ws.mu.Unlock()
	if !done {
		ws.queue(wsEvent{kind: wsEvClose, code: code, reason: reason})
	}
}

// queue appends ev and makes sure something runs the callbacks. Loop only.
func (ws *WSConn) queue(ev wsEvent) {
	ws.mu.Lock()
	if ev.data != nil {
		ws.evBytes += len(*ev.data)
	}
	ws.events = append(ws.events, ev)
	start := !ws.running
	ws.running = ws.running || start
	ws.mu.Unlock()
	if start {
		ws.startCallbacks()
	}
}

// trimEvents gives back the queue's array while nothing is queued or
// running (the sweep's look: a busy connection keeps it between messages).
func (ws *WSConn) trimEvents() {
	ws.mu.Lock()
	if !ws.running && ws.evHead == len(ws.events) {
		ws.events, ws.evHead = nil, 0
	}
	ws.mu.Unlock()
}

// readQueueFull: the callbacks are behind; stop reading. Loop only.
func (ws *WSConn) readQueueFull() bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return len(ws.events)-ws.evHead >= ws.cfg.MaxReadQueue || ws.evBytes >= ws.cfg.MaxReadQueueBytes
}

// startCallbacks hands the queue to a worker, or runs it on the loop for an
// Inline server. When every worker is busy, the sweep tries again (the
// queue's cap stops reading meanwhile). Loop only, with running set.
func (ws *WSConn) startCallbacks() {
	c := ws.c
	if c.config().Inline || c.config().Workers == nil {
		ws.mu.Lock()
		ws.onLoop = true
		ws.mu.Unlock()
		ws.runCallbacks(nil)
		ws.mu.Lock()
		ws.onLoop = false
		ws.mu.Unlock()
		if ws.h2s != nil && ws.live() {
			ws.flushOut() // over HTTP/1 the callback's end flushes
		}
		return
	}
	b := getBatch(c)
	b.ws = ws
	ws.grantWire()
	if err := c.config().Workers.submit(b); err != nil {
		b.ws = nil
		b.release()
		ws.mu.Lock()
		ws.releaseWire()
		ws.mu.Unlock()
		if err == errWorkersReleased {
			// The server is stopping: nothing else will run them.
			ws.runCallbacks(nil)
			return
		}
		ws.mu.Lock()
		ws.running, ws.retrySubm = false, true
		ws.mu.Unlock()
	}
}

// retryCallbacks submits the queue again after the pool was full. Loop only
// (the sweep).
func (ws *WSConn) retryCallbacks() {
	ws.mu.Lock()
	start := ws.retrySubm && !ws.running && len(ws.events) > ws.evHead
	ws.retrySubm = false
	ws.running = ws.running || start
	ws.mu.Unlock()
	if start {
		ws.startCallbacks()
	}
}

// runCallbacks runs the queued events in order until the queue is empty.
// On a worker (b is its batch, which a blocked writer takes out of the
// pool's bound), or on the loop for an Inline server (b is nil).
func (ws *WSConn) runCallbacks(b *batch) {
	ws.mu.Lock()
	ws.cb = b
	ws.mu.Unlock()
	for {
		ws.mu.Lock()
		if ws.evHead == len(ws.events) {
			ws.running = false
			ws.cb = nil
			ws.releaseWire()
			if cap(ws.events) > 4*ws.cfg.MaxReadQueue {
				ws.events = nil
			} else {
				ws.events = ws.events[:0]
			}
			ws.evHead = 0
			ws.mu.Unlock()
			return
		}
		wasFull := len(ws.events)-ws.evHead >= ws.cfg.MaxReadQueue || ws.evBytes >= ws.cfg.MaxReadQueueBytes
		ev := ws.events[ws.evHead]
		ws.events[ws.evHead] = wsEvent{}
		ws.evHead++
		if ev.data != nil {
			ws.evBytes -= len(*ev.data)
		}
		ws.mu.Unlock()
		if wasFull && !ws.onLoopNow() {
			// Reading may be paused on this queue: let the loop look.
			_ = ws.c.el.Execute(context.Background(), (*wsResume)(ws))
		}
		ws.run(ev)
	}
}

func (ws *WSConn) onLoopNow() bool {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.onLoop
}

// run calls the handler for one event, recovering a panic (logged; the
// connection is closed with 1011).
func (ws *WSConn) run(ev wsEvent) {
	defer func() {
		if r := recover(); r != nil {
			ws.logger().Error("gwist: WebSocket handler panic",
				slog.Any("panic", r), slog.String("stack", string(debug.Stack())))
			_ = ws.Close(websocket.CloseInternalError, "")
		}
	}()
	switch ev.kind {
	case wsEvOpen:
		ws.h.OnOpen(ws)
	case wsEvMessage:
		ws.h.OnMessage(ws, ev.op, *ev.data)
		if cap(*ev.data) <= 64<<10 {
			*ev.data = (*ev.data)[:0]
			wsPayloadPool.Put(ev.data)
		}
	case wsEvClose:
		ws.h.OnClose(ws, ev.code, ev.reason)
	}
}

// logger is where the connection's callbacks' panics are logged.
func (ws *WSConn) logger() *slog.Logger {
	if ws.nc != nil {
		return ws.nc.logger
	}
	return ws.c.srv.cfg.Logger
}

// wsResume is a WSConn as the loop's task: the callbacks caught up, read
// again if reading was paused on them.
type wsResume WSConn

// Run implements gnet.Runnable. Loop only.
func (r *wsResume) Run(context.Context) error {
	ws := (*WSConn)(r)
	c := ws.c
	if c.closed || !ws.live() {
		return nil
	}
	if s := ws.h2s; s != nil {
		if !ws.paused {
			return nil
		}
		c.beginLoopTask()
		ws.paused = !ws.process()
		s.d.output()
		c.finishCallback()
		return nil
	}
	if !c.paused || c.readingStopped() {
		return nil
	}
	c.beginLoopTask()
	c.resume()
	c.finishCallback()
	return nil
}
