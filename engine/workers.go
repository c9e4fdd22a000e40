//go:build unix

package engine

import (
	"errors"
	"sync"
	"time"

	"github.com/panjf2000/ants/v2"
)

// ErrOverloaded is returned when every worker is busy; the engine answers
// such requests with 503 and Retry-After.
var ErrOverloaded = errors.New("gwist: all workers busy")

// errWorkersReleased is returned for work submitted after Release.
var errWorkersReleased = errors.New("gwist: worker pool released")

// Workers is a bounded pool of goroutines that run handlers. Several servers
// (a plaintext and a TLS listener, say) can share one.
//
// Batches wait in one FIFO and are run by drainers: goroutines that take
// batches until the FIFO is empty. A drainer that finishes a batch takes the
// next one without a wake-up, which under load saves the goroutine hand-off
// per request that one goroutine per batch costs. A batch is submitted with
// a new drainer when no drainer is free to take it. Batches queued behind
// drainers that are all busy are rescued: when no batch finishes for
// rescueAfter while some wait, every waiting batch gets a drainer of its
// own, so a blocking handler holds up the batches behind it for about a
// millisecond, not for as long as it blocks.
type Workers struct {
	pool *ants.PoolWithFunc // provides (and reuses) drainer goroutines
	size int

	mu   sync.Mutex
	fifo batchFIFO // batches accepted, no drainer yet
	// pending counts batches accepted and not yet finished (queued or
	// running); it is the bound: at most size at once. A batch whose
	// response streams leaves it (leaveBound) and is counted in streams.
	pending, streams int
	// rejected counts batches refused with ErrOverloaded.
	rejected uint64
	// drainers counts drainers started and not yet gone; free counts those
	// of them not running a handler, which look at the FIFO before leaving.
	drainers, free int
	// finished counts batches run; rescue compares it with its value when
	// the timer was armed (finishedAtArm) to tell a stall from progress.
	finished, finishedAtArm uint64
	rescue                  *time.Timer
	rescueArmed             bool
	released                bool
	idle                    chan struct{} // Release waits for it: closed when pending reaches 0
}

// rescueAfter is how long batches wait behind busy drainers, with none
// finishing, before each gets a drainer of its own.
const rescueAfter = time.Millisecond

// NewWorkers starts a pool of at most size goroutines (DefaultWorkers when
// size <= 0). When size batches of requests are already queued or running,
// a new one is refused at once rather than queued without bound.
func NewWorkers(size int) (*Workers, error) {
	if size <= 0 {
		size = DefaultWorkers
	}
	w := &Workers{size: size}
	w.rescue = time.AfterFunc(time.Hour, w.rescueStalled)
	w.rescue.Stop()
	p, err := ants.NewPoolWithFunc(size, w.drain,
		ants.WithNonblocking(true),
		ants.WithExpiryDuration(10*time.Second))
	if err != nil {
		return nil, err
	}
	w.pool = p
	return w, nil
}

// Streams reports how many handlers are streaming responses outside the
// bound (leaveBound).
func (w *Workers) Streams() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.streams
}

// leaveBound takes b's slot out of the bound once its response streams: a
// stream lives as long as its client listens (an SSE feed: hours), and
// holding a slot for it would let the size+1st listener get a 503 while the
// pool has nothing to do. Streams stay bounded by the connection limit (one
// per connection at a time); the goroutine that runs one is the pool's
// while the pool has room, a plain one beyond it. Called by b's worker.
func (w *Workers) leaveBound(b *batch) {
	w.mu.Lock()
	if !b.unbound {
		b.unbound = true
		w.pending--
		w.streams++
	}
	w.mu.Unlock()
}

// Running reports how many workers are running handlers now.
func (w *Workers) Running() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.drainers - w.free
}

// Queued reports how many batches (the requests of one connection that
// arrived in one read; usually one request) wait for a worker.
func (w *Workers) Queued() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.fifo.len()
}

// Rejected counts the batches refused because the pool was full (each
// answered with 503).
func (w *Workers) Rejected() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rejected
}

// Cap reports the pool's size.
func (w *Workers) Cap() int { return w.size }

// Release refuses further work and waits up to timeout for the batches
// already accepted to finish, then stops the pool's goroutines.
func (w *Workers) Release(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	w.mu.Lock()
	w.released = true
	w.rescue.Stop()
	w.rescueArmed = false
	var idle chan struct{}
	if w.pending > 0 || w.streams > 0 {
		if w.idle == nil {
			w.idle = make(chan struct{})
		}
		idle = w.idle
	}
	w.mu.Unlock()
	if idle != nil {
		select {
		case <-idle:
		case <-time.After(timeout):
		}
	}
	return w.pool.ReleaseTimeout(max(time.Until(deadline), time.Millisecond))
}

// submit queues b for a drainer, starting one when none is free. It
// refuses b with ErrOverloaded when size batches are already pending, and
// with errWorkersReleased after Release.
func (w *Workers) submit(b *batch) error {
	w.mu.Lock()
	switch {
	case w.released:
		w.mu.Unlock()
		return errWorkersReleased
	case w.pending >= w.size:
		w.rejected++
		w.mu.Unlock()
		return ErrOverloaded
	}
	w.pending++
	w.fifo.push(b)
	start := w.reserveDrainer()
	w.mu.Unlock()
	if start {
		w.startDrainer()
	}
	return nil
}

// reserveDrainer counts a new drainer in when none is free to take the
// FIFO's head. The count stays within size: a drainer is only added while
// every existing one runs a batch and at least one more batch is queued.
// Called with mu held.
func (w *Workers) reserveDrainer() bool {
	if w.fifo.len() == 0 || w.free > 0 {
		return false
	}
	w.drainers++
	w.free++
	return true
}

// startDrainer runs a reserved drainer on the pool. The pool can refuse
// for a moment although the count allows one (a drainer that just left has
// not yet given its goroutine back) or after Release; a plain goroutine
// then does the work, so a reserved drainer always runs.
func (w *Workers) startDrainer() {
	// Invoke's argument must be non-nil: ants treats nil as "worker, exit".
	if err := w.pool.Invoke(w); err != nil {
		go w.drain(w)
	}
}

// drain runs batches from the FIFO until it is empty. serve recovers
// handler panics, so runBatch returns and the counts stay right.
func (w *Workers) drain(any) {
	w.mu.Lock()
	for {
		b := w.fifo.pop()
		if b == nil {
			w.free--
			w.drainers--
			w.mu.Unlock()
			return
		}
		w.free--
		if w.fifo.len() > 0 && w.free == 0 {
			w.armRescue()
		}
		w.mu.Unlock()
		slot := runBatch(b) // b may already be another connection's
		w.mu.Lock()
		w.free++
		w.finished++
		switch slot {
		case slotUnbound:
			w.streams--
		case slotHeld:
			w.pending--
		}
		w.checkIdle()
	}
}

// How a batch's place in the bound ends, as runBatch reports it.
const (
	slotHeld     = iota // still counted in pending: drain gives it back
	slotReturned        // given back by handlersReturned already
	slotUnbound         // the response streamed: counted in streams
)

// handlersReturned gives b's place in the bound back once its handlers
// have returned, before its responses are handed off: a client may send
// its next request the moment it reads them, and with a small pool that
// request must not find the place still taken (WithWorkers(1) answered
// such a client 503 every few thousand requests). Called by b's worker;
// reports whether it gave the place back (not for a streamed response,
// which left the bound already).
func (w *Workers) handlersReturned(b *batch) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if b.unbound {
		return false
	}
	w.pending--
	w.checkIdle()
	return true
}

// checkIdle wakes Release when nothing is pending or streaming. Called
// with mu held.
func (w *Workers) checkIdle() {
	if w.pending == 0 && w.streams == 0 && w.idle != nil {
		close(w.idle)
		w.idle = nil
	}
}

// armRescue starts the stall timer unless it is already running. Called
// with mu held when a batch waits and no drainer is free.
func (w *Workers) armRescue() {
	if w.rescueArmed || w.released {
		return
	}
	w.rescueArmed = true
	w.finishedAtArm = w.finished
	w.rescue.Reset(rescueAfter)
}

// rescueStalled runs when the stall timer fires. If no batch finished
// since it was armed while batches still wait and no drainer is free, the
// drainers are stuck in handlers: start one for every waiting batch.
// Otherwise the queue is moving; look again later if it is still waiting.
func (w *Workers) rescueStalled() {
	w.mu.Lock()
	w.rescueArmed = false
	start := 0
	if w.fifo.len() > 0 && w.free == 0 && !w.released {
		if w.finished == w.finishedAtArm {
			start = w.fifo.len()
			w.drainers += start
			w.free += start
		} else {
			w.armRescue()
		}
	}
	w.mu.Unlock()
	for range start {
		w.startDrainer()
	}
}

// batchFIFO is the workers' queue of batches: a ring that grows by doubling
// (to at most the pool's bound, Workers.size). A ring rather than a list
// linked through the batches, so that queueing one writes nothing into the
// batch before it, which a drainer on another core may be reading.
// Under Workers.mu.
type batchFIFO struct {
	ring  []*batch // len is 0 or a power of two
	first int      // the head's index
	n     int
}

func (q *batchFIFO) len() int { return q.n }

func (q *batchFIFO) push(b *batch) {
	if q.n == len(q.ring) {
		q.grow()
	}
	q.ring[(q.first+q.n)&(len(q.ring)-1)] = b
	q.n++
}

// pop takes the head, or returns nil when the queue is empty.
func (q *batchFIFO) pop() *batch {
	if q.n == 0 {
		return nil
	}
	b := q.ring[q.first]
	q.ring[q.first] = nil
	q.first = (q.first + 1) & (len(q.ring) - 1)
	q.n--
	return b
}

func (q *batchFIFO) grow() {
	ring := make([]*batch, max(16, 2*len(q.ring)))
	for i := range q.n {
		ring[i] = q.ring[(q.first+i)&(len(q.ring)-1)]
	}
	q.ring, q.first = ring, 0
}
