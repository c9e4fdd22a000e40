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

// wsEventQueue holds the events that wait behind the one the callbacks
// run (a connection that sends its next message before its echo came back,
// or a burst). Under WSConn.mu.
type wsEventQueue struct {
	evs   []wsEvent
	head  int // evs[head] is the next event
	bytes int // the queued messages' payload bytes
}

// len is the number of events waiting; a nil queue holds none.
func (q *wsEventQueue) len() int {
	if q == nil {
		return 0
	}
	return len(q.evs) - q.head
}

// pop takes the next event; the queue must not be empty.
func (q *wsEventQueue) pop() wsEvent {
	ev := q.evs[q.head]
	q.evs[q.head] = wsEvent{}
	q.head++
	if ev.data != nil {
		q.bytes -= len(*ev.data)
	}
	return ev
}

// rewind makes an empty queue reuse its array from the start, or drops an
// array grown past maxKeep events.
func (q *wsEventQueue) rewind(maxKeep int) {
	if q == nil || q.head == 0 {
		return
	}
	if cap(q.evs) > maxKeep {
		q.evs = nil
	} else {
		q.evs = q.evs[:0]
	}
	q.head = 0
}

type wsEvent struct {
	kind   wsEventKind
	op     websocket.Opcode
	answer bool // wsEvClose: the peer's close frame waits for this event (wsCloseReceived)
	code   websocket.CloseCode
	data   *[]byte // a message's payload (pooled)
	reason string
}

var wsPayloadPool = sync.Pool{New: func() any { return new([]byte) }}

// wsInlinePayload is the largest message that travels to the worker in
// its batch (batch.evSmall) rather than in a payload buffer of its own:
// batch is 320 bytes with it, a size class of whole cache lines.
const wsInlinePayload = 104

// queueMessage queues a received message for the callbacks. Loop only.
func (ws *WSConn) queueMessage(op websocket.Opcode, payload []byte) {
	ev := wsEvent{kind: wsEvMessage, op: op}
	if len(payload) > wsInlinePayload {
		// Copied before queue takes mu: it could be big.
		ev.data = ws.copyPayload(payload)
	}
	ws.queue(ev, payload)
}

// copyPayload copies a received message for the callbacks, into the
// payload buffer the worker gave back if there is one. Loop only.
func (ws *WSConn) copyPayload(payload []byte) *[]byte {
	p := ws.loopSpare
	if p != nil {
		ws.loopSpare = nil
	} else {
		p = wsPayloadPool.Get().(*[]byte)
	}
	*p = append((*p)[:0], payload...)
	return p
}

// queueClose queues OnClose, once; nothing is queued after it. Loop only.
func (ws *WSConn) queueClose(code websocket.CloseCode, reason string) {
	ws.queueCloseEvent(wsEvent{kind: wsEvClose, code: code, reason: reason})
}

// queueCloseEvent is queueClose for a prepared event. Loop only.
func (ws *WSConn) queueCloseEvent(ev wsEvent) {
	ws.mu.Lock()
	done := ws.closedEv
	ws.closedEv = true
	ws.mu.Unlock()
	if !done {
		ws.queue(ev, nil)
	}
}

// queue appends ev and makes sure something runs the callbacks: it hands
// them to a worker (with the write side, when it may be granted) if none
// runs them. A message's payload is in ev.data, or still in payload (in
// gnet's input: at most wsInlinePayload bytes), to be copied where the
// event goes. Loop only.
func (ws *WSConn) queue(ev wsEvent, payload []byte) {
	onWorkers := ws.onWorkers()
	ws.mu.Lock()
	start := !ws.running
	ws.running = true
	var b *batch
	var first wsEvent
	if start && onWorkers {
		b, ws.spareBatch = ws.spareBatch, nil
		if ws.events.len() == 0 {
			// Nothing waits before it: it goes to the worker in its
			// batch, not through the queue.
			first = ev
		}
		if ws.wireGrantable() {
			ws.grantWireLocked()
		}
	}
	if first.kind == 0 {
		if ev.kind == wsEvMessage && ev.data == nil {
			ev.data = ws.copyPayload(payload) // small: under mu is fine
		}
		ws.appendEventLocked(ev)
	}
	ws.noteQueuesLocked()
	ws.mu.Unlock()
	if start {
		ws.startCallbacks(b, first, payload)
	}
}

// appendEventLocked puts ev at the end of the callbacks' queue. Called on
// the loop with mu held.
func (ws *WSConn) appendEventLocked(ev wsEvent) {
	q := ws.events
	if q == nil {
		q = new(wsEventQueue)
		ws.events = q
	}
	if ev.data != nil {
		q.bytes += len(*ev.data)
	}
	q.evs = append(q.evs, ev)
}

// onWorkers: the callbacks run on the worker pool, not on the loop.
func (ws *WSConn) onWorkers() bool {
	cfg := ws.c.config()
	return !cfg.Inline && cfg.Workers != nil
}

// lookAtQueues refreshes the loop's view of the queues (queueFull,
// writersQueued) and takes the payload buffer the worker gave back: once
// per read, and queue does it at each message, so the loop takes mu once
// per message where it took it at every step of the parse. Loop only.
func (ws *WSConn) lookAtQueues() {
	ws.mu.Lock()
	ws.noteQueuesLocked()
	ws.mu.Unlock()
}

// noteQueuesLocked is lookAtQueues with mu held.
func (ws *WSConn) noteQueuesLocked() {
	ws.queueFull = ws.readQueueFullLocked()
	ws.writersQueued = ws.queuedLen
	if ws.loopSpare == nil {
		ws.loopSpare, ws.spare = ws.spare, nil
	}
}

// readQueueFullLocked: the callbacks' queue is at its bound
// (WSConfig.MaxReadQueue, MaxReadQueueBytes). Called with mu held.
func (ws *WSConn) readQueueFullLocked() bool {
	q := ws.events
	return q != nil && (q.len() >= ws.cfg.MaxReadQueue || q.bytes >= ws.cfg.MaxReadQueueBytes)
}

// trimEvents gives back the queue's array, the spare batch and payload
// buffer while nothing is queued or running (the sweep's look: a busy
// connection keeps them between messages). Loop only.
func (ws *WSConn) trimEvents() {
	ws.mu.Lock()
	quiet := !ws.running && ws.events.len() == 0
	if quiet {
		ws.events = nil
	}
	ws.mu.Unlock()
	if quiet {
		ws.dropSpares()
	}
}

// dropSpares puts the connection's spare batch and payload buffers back in
// their pools: it is quiet, or gone. Loop only.
func (ws *WSConn) dropSpares() {
	ws.mu.Lock()
	b, p := ws.spareBatch, ws.spare
	ws.spareBatch, ws.spare = nil, nil
	ws.mu.Unlock()
	if b != nil {
		b.ws = nil
		b.release()
	}
	putPayload(p)
	putPayload(ws.loopSpare)
	ws.loopSpare = nil
}

// putPayload returns a message's payload buffer to its pool (not a big
// one: the pool would keep it for every later small message).
func putPayload(p *[]byte) {
	if p != nil && cap(*p) <= 64<<10 {
		*p = (*p)[:0]
		wsPayloadPool.Put(p)
	}
}

// startCallbacks hands the queue to a worker in batch b (nil: a pooled
// one), with first, the event that goes before the queue (none if its kind
// is 0; queue gives one only to a worker; a message whose data is nil has
// its payload in payload, which goes into the batch), or runs the queue on
// the loop for an Inline server. When every worker is busy, the sweep
// tries again (the queue's cap stops reading meanwhile). Loop only, with
// running set (and the write side granted, if it may be).
func (ws *WSConn) startCallbacks(b *batch, first wsEvent, payload []byte) {
	c := ws.c
	if !ws.onWorkers() {
		ws.mu.Lock()
		ws.onLoop = true
		if ws.loopG == 0 && c.loop != nil {
			ws.loopG = c.loop.goroutineID()
		}
		ws.mu.Unlock()
		ws.runCallbacks(nil)
		ws.mu.Lock()
		ws.onLoop = false
		ws.noteQueuesLocked() // they emptied the queue: process reads on
		ws.mu.Unlock()
		if ws.h2s != nil && ws.live() {
			ws.flushOut() // over HTTP/1 the callback's end flushes
		}
		return
	}
	if b == nil {
		b = getBatch(c)
	}
	if first.kind == wsEvMessage && first.data == nil {
		b.evData = append(b.evSmall[:0], payload...)
		first.data = &b.evData
	}
	b.ws, b.ev = ws, first
	if err := c.config().Workers.submit(b); err != nil {
		if first.data == &b.evData {
			first.data = ws.copyPayload(b.evData) // b goes back to its pool
		}
		b.ws, b.ev = nil, wsEvent{}
		b.release()
		ws.mu.Lock()
		ws.releaseWire()
		if first.kind != 0 {
			ws.appendEventLocked(first) // the queue is empty: only the loop appends
		}
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
	start := ws.retrySubm && !ws.running && ws.events.len() > 0
	ws.retrySubm = false
	ws.running = ws.running || start
	ws.mu.Unlock()
	if start {
		ws.grantWire()
		ws.startCallbacks(nil, wsEvent{}, nil)
	}
}

// runCallbacks runs the queued events in order until the queue is empty.
// On a worker (b is its batch, which a blocked writer takes out of the
// pool's bound), or on the loop for an Inline server (b is nil). It
// reports what became of b's place in the workers' bound (runBatch); b is
// the connection's spare (or back in its pool) when it returns.
func (ws *WSConn) runCallbacks(b *batch) (slot int) {
	var done *[]byte  // the payload of the message just run
	messages := false // a message ran: the connection is busy, keep b for the next
	ws.mu.Lock()
	ws.cb = b
	if b != nil && b.ev.kind != 0 {
		ev := b.ev
		b.ev = wsEvent{}
		ws.mu.Unlock()
		ws.run(ev)
		if ev.data != &b.evData {
			done = ev.data
		} else {
			messages = true // carried in b: nothing to keep or give back
		}
		ws.mu.Lock()
	}
	for {
		if done != nil {
			messages = true
			ws.keepPayload(done)
			done = nil
		}
		if ws.events.len() == 0 {
			ws.running = false
			ws.cb = nil
			ws.releaseWire()
			ws.events.rewind(4 * ws.cfg.MaxReadQueue)
			slot = slotHeld
			if b != nil {
				// Nobody takes b out of the bound once cb is cleared.
				slot = slotOf(b.unbound)
				b.unbound = false
				if messages && ws.spareBatch == nil && !ws.isGone {
					ws.spareBatch, b = b, nil
				}
			}
			ws.mu.Unlock()
			if b != nil {
				b.ws = nil
				b.release()
			}
			return slot
		}
		wasFull := ws.readQueueFullLocked()
		ev := ws.events.pop()
		ws.mu.Unlock()
		if wasFull && !ws.onLoopNow() {
			// Reading may be paused on this queue: let the loop look.
			_ = ws.c.el.Execute(context.Background(), (*wsResume)(ws))
		}
		ws.run(ev)
		done = ev.data
		ws.mu.Lock()
	}
}

// wsSparePayloadMax caps the payload buffer a connection keeps between
// messages: a bigger one goes back to the pool at once, so that many
// connections that each sent one big message do not each hold its buffer
// until the sweep.
const wsSparePayloadMax = 1 << 10

// keepPayload keeps a run message's payload buffer as the connection's
// spare for the loop's next message, or returns it to the pool. A small
// message that came in a big buffer from the pool (another connection's
// once) leaves a spare of its own size instead: else every small message
// of the connection would take that buffer from the pool again. Called
// with mu held.
func (ws *WSConn) keepPayload(p *[]byte) {
	if ws.spare == nil && !ws.isGone {
		switch {
		case cap(*p) <= wsSparePayloadMax:
			ws.spare = p
			return
		case len(*p) <= wsSparePayloadMax:
			small := make([]byte, 0, max(len(*p), 64))
			ws.spare = &small
		}
	}
	putPayload(p)
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
		ws.h.OnMessage(ws, ev.op, *ev.data) // runCallbacks keeps or pools ev.data
	case wsEvClose:
		if ev.answer {
			ws.answerClose()
		}
		ws.h.OnClose(ws, ev.code, ev.reason)
	}
}

// answerClose asks the loop for the answer to the peer's close frame, now
// that the callbacks before it have run (wsCloseReceived): it goes out
// after what they wrote, as a close the application asks for does. If the
// application closed meanwhile, its close frame is the answer.
func (ws *WSConn) answerClose() {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.closeLocked(ws.closeCode, "") // the peer's code (answerAfterCallbacks)
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
		ws.readOnH2()
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
