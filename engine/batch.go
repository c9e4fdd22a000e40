//go:build unix

package engine

import (
	"context"
	"sync"
	"sync/atomic"
)

// batch is the unit of work handed to a worker: the requests of one
// connection parsed in one read, served in order by one worker, whose
// responses come back to the loop in one Execute. Batching keeps pipelined
// requests to one hand-off each way instead of one per request.
type batch struct {
	// What a worker reads first, together at the start (a batch crosses
	// between the loop's core and a worker's for every message).
	c *conn
	// upgrade: the WebSocket its last request upgraded to (wsupgrade.go);
	// ws: the WebSocket whose callbacks this batch runs (wsevents.go).
	upgrade, ws *WSConn
	// unbound: its worker left the pool's bound to stream (workers.go).
	unbound bool
	// ev: the WebSocket event the worker runs before ws's queue (one that
	// nothing waited before, wsevents.go queue). A message of at most
	// wsInlinePayload bytes comes in the batch itself (evSmall, below).
	ev wsEvent

	exs  []*Exchange
	reqs int // len(exs) when queued; a settling worker empties exs early
	out  []byte
	done bool
	// closeAfter: the connection closes once out is written (a request
	// without keep-alive, a handler's "Connection: close", or a drain).
	closeAfter bool
	// direct: the loop lets the worker write out itself (direct.go);
	// cipher: what is left in out is ciphertext; writeErr: that write failed.
	direct   bool
	firstTLS bool // the connection's first response: record its time
	cipher   bool
	writeErr error
	// cont: its handler asked for "100 Continue" (inbody.go).
	cont bool
	// detached: the response its last request detached (detached.go).
	detached *Detached
	// h2: the HTTP/2 stream whose request this batch runs (h2stream.go).
	h2 *h2Stream
	// dstate: how a direct batch comes back to the loop; see direct.go.
	dstate atomic.Uint32
	next   *batch // the connection's next batch, in response order

	// A WebSocket message's payload of up to wsInlinePayload bytes, for ev
	// (ev.data is &evData, which points into evSmall), on a line of its
	// own after an HTTP batch's lines: a WebSocket echo touches the first
	// and this one.
	_       [8]byte
	evData  []byte
	evSmall [wsInlinePayload]byte
}

var batchPool = sync.Pool{New: func() any { return new(batch) }}

func getBatch(c *conn) *batch {
	b := batchPool.Get().(*batch)
	if gwistcheck && (b.c != nil || b.done || b.dstate.Load() != directRunning) {
		panic("gwist: a pooled batch is still in use (touched after its release)")
	}
	b.c = c
	return b
}

// release returns the batch and its exchanges to their pools. Loop only.
func (b *batch) release() {
	if gwistcheck && b.c == nil {
		panic("gwist: a batch released twice")
	}
	b.releaseExchanges()
	if cap(b.out) > 256<<10 {
		b.out = nil
	} else {
		b.out = b.out[:0]
	}
	b.c, b.reqs, b.done, b.closeAfter, b.next = nil, 0, false, false, nil
	b.direct, b.firstTLS, b.cipher, b.writeErr, b.unbound, b.cont = false, false, false, nil, false, false
	b.detached, b.h2, b.upgrade, b.ws, b.ev = nil, nil, nil, nil, wsEvent{}
	if gwistcheck {
		// What still points into the batch (a message's payload) reads
		// as wiped from now on.
		clear(b.evSmall[:])
	}
	b.dstate.Store(directRunning)
	batchPool.Put(b)
}

// releaseExchanges returns the batch's exchanges to their pool; b.reqs
// still says how many there were. Run by whoever owns b.exs: the loop, or
// a settling worker.
func (b *batch) releaseExchanges() {
	for i, ex := range b.exs {
		putExchange(ex)
		b.exs[i] = nil
	}
	b.exs = b.exs[:0]
}

// runBatch runs on a worker: serve every request in order, serialize the
// responses, then hand the batch back to the connection's loop. It reports
// what became of the batch's place in the workers' bound (slotHeld,
// slotReturned, slotUnbound), decided before b is handed back and may be
// reused.
func runBatch(b *batch) (slot int) {
	if ws := b.ws; ws != nil {
		// A WebSocket's callbacks (wsevents.go). A writer that blocked
		// meanwhile took b out of the bound (wsconn.go); runCallbacks
		// returns once nobody can any more, and keeps b for the
		// connection's next message.
		return ws.runCallbacks(b)
	}
	s := b.c.srv
	if st := b.h2; st != nil {
		// One HTTP/2 request: the stream hands its response to the loop
		// itself, and the loop frees the batch with the stream.
		ex := b.exs[0]
		s.serve(ex)
		if ex.body != nil {
			ex.body.close(ex)
		}
		slot = slotOf(b.unbound)
		st.finishOnWorker(ex)
		return slot
	}
	var clock int64 // the clock carry (Exchange.ClockCarry)
	for i, ex := range b.exs {
		ex.w.b = b
		ex.resp = &ex.w
		ex.clock = clock
		s.serve(ex)
		clock = ex.clock
		keep := ex.w.in == nil || ex.w.endBody(ex) // a streamed request body (inbody.go)
		if ex.ws != nil {                          // upgraded to WebSocket: the loop switches (wsupgrade.go)
			b.upgrade = ex.ws
			b.out = appendSwitching(b.out, &ex.Header)
			break
		}
		st := ex.w.st
		if st != nil && st.detached != nil {
			// The last of the batch (Detach checks): the loop takes over.
			b.detached = st.detached
			if st.broken {
				b.detached.abort()
			}
			break
		}
		switch {
		case st != nil:
			keep = st.finish() && keep // streamed (h1stream.go): sends the rest itself
		case ex.w.hungUp:
			keep = false // abandoned (Exchange.Hangup): nothing of it goes out
		default:
			keep = keep && ex.Request.KeepAlive && !ex.wantsClose() && !s.draining.Load()
			b.out = ex.appendResponse(b.out, keep, s.cfg.ServerName)
		}
		if !keep {
			b.closeAfter = true
			for _, rest := range b.exs[i+1:] {
				rest.cancel.cancel(context.Canceled)
			}
			break
		}
	}
	slot = slotOf(b.unbound)
	if slot == slotHeld && s.cfg.Workers.handlersReturned(b) {
		slot = slotReturned
	}
	if b.direct && b.detached == nil && b.upgrade == nil && b.c.writeDirect(b) && !b.closeAfter && b.settle() {
		return slot // written; the loop collects the batch when it next looks
	}
	if err := b.c.el.Execute(context.Background(), b); err != nil {
		// The engine is stopping and the loop is gone, so nobody will
		// write these responses. The batch is left to the garbage
		// collector, since the connection's OnClose may still be looking
		// at it; a detached response is ended for those waiting on it.
		if b.detached != nil {
			b.detached.abandon()
		}
	}
	return slot
}

// slotOf is the slot state of a batch whose handlers ran: unbound when its
// response streamed.
func slotOf(unbound bool) int {
	if unbound {
		return slotUnbound
	}
	return slotHeld
}

// Run is called on the connection's loop once the worker is done.
func (b *batch) Run(context.Context) error {
	d := &b.c.h1
	if g := d.grantWait; g != nil && g.b == b {
		d.grantWait = nil // it finished without needing the write side
	}
	if b.detached != nil {
		b.detached.adopt() // not done: the response goes on
		return nil
	}
	if b.upgrade != nil {
		d.adoptUpgrade(b)
		return nil
	}
	b.done = true
	d.onBatchDone()
	return nil
}
