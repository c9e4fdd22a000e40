//go:build unix

package engine

import (
	"context"
	"sync"
)

// A connection's streams hand their handlers' output to the loop together:
// a stream with something to collect joins the connection's ready list, and
// the connection, not the stream, has one task queued (the hand-off,
// handoff.go). The loop then collects every ready stream and writes their
// frames in one write, where one task and one write per stream cost a
// loop wake-up and a syscall each when many streams finish at once (h2load
// -m10, gRPC).
type h2Ready struct {
	mu      sync.Mutex
	streams []*h2Stream // under mu: the ready streams, each once
	spare   []*h2Stream // loop only: the list the loop last emptied
	handoff handoff     // to the loop: h2CollectReady
}

// markReady puts s on its connection's ready list. It reports false when
// the loop is gone (the engine is stopping). Called with s.mu held (the
// lock order is a stream's mu, then the list's).
func (d *h2Driver) markReady(s *h2Stream) bool {
	if s.readied {
		return true
	}
	r := &d.ready
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.handoff.post(d.c.el, (*h2CollectReady)(d)) {
		return false
	}
	s.readied = true
	r.streams = append(r.streams, s)
	return true
}

// takeReady empties the ready list. Loop only.
func (d *h2Driver) takeReady() []*h2Stream {
	r := &d.ready
	r.mu.Lock()
	list := r.streams
	r.streams = r.spare[:0]
	r.spare = nil
	r.handoff.taken()
	r.mu.Unlock()
	return list
}

// h2CollectReady is an h2Driver as the loop's task.
type h2CollectReady h2Driver

// Run collects every ready stream of the connection, then writes. Loop
// only.
func (t *h2CollectReady) Run(context.Context) error {
	d := (*h2Driver)(t)
	c := d.c
	list := d.takeReady()
	if c.closed {
		for _, s := range list {
			s.mu.Lock()
			s.readied = false
			s.mu.Unlock()
		}
	} else {
		c.beginLoopTask()
		for _, s := range list {
			s.collect()
		}
		d.output()
		c.finishCallback()
	}
	clear(list)
	d.ready.spare = list[:0]
	return nil
}
