//go:build unix

package engine

import (
	"context"
	"sync/atomic"

	"github.com/panjf2000/gnet/v2"
)

// loopState is what the engine keeps per event loop: the connections to
// sweep for timeouts. Loop only, apart from the Server's map that finds it.
type loopState struct {
	conns []*conn
	srv   *Server
	// g is the loop's goroutine, for the loop-only checks of test builds
	// (loopcheck_on.go).
	g loopGoroutine
	// gid is the loop's goroutine id, 0 until goroutineID is first asked.
	gid uint64
	// held is what the loop's connections held at its last sweep
	// (memrelease.go); read by the tick.
	held  atomic.Int64
	close []*conn // scratch for sweep
	// epfd is the loop's epoll descriptor for the read pause once
	// epfdKnown, -1 when unavailable (gnetreach_epoll.go).
	epfd      int
	epfdKnown bool
	// opened counts OnOpen calls, for the raw accept's failure check
	// (gnetreach_accept_linux.go).
	opened uint64
	// parked: while conn.parseFrom runs, the connection gnet is closing,
	// whose buffer holds what a half-closed client sent and the loop had not
	// parsed (HTTP/1 requests, WebSocket frames); zero otherwise.
	parked parkedInput
	// carried: what half-closed clients sent beyond MaxPipelined, copied
	// out of their closed gnet connections' buffers (carriedInput); nil
	// until a connection needs it.
	carried map[*conn]*carriedInput
}

// parkedInput ties a connection to the gnet connection its input is read
// from for one synchronous parse.
type parkedInput struct {
	c    *conn
	from gnet.Conn
}

// goroutineID is the id of the loop's goroutine (gnet runs each loop on
// one), read from the stack once per loop. Loop only.
func (l *loopState) goroutineID() uint64 {
	if l.gid == 0 {
		l.gid = curGoroutineID()
	}
	return l.gid
}

func (l *loopState) add(c *conn) {
	c.loop, c.slot = l, len(l.conns)
	l.conns = append(l.conns, c)
}

func (l *loopState) remove(c *conn) {
	if l.carried != nil {
		delete(l.carried, c)
	}
	last := len(l.conns) - 1
	moved := l.conns[last]
	l.conns[c.slot] = moved
	moved.slot = c.slot
	l.conns[last] = nil
	l.conns = l.conns[:last]
	c.loop = nil
}

// Run is the periodic sweep, executed on the loop: timeouts, closes waiting
// for output to drain, paused connections to resume, and the drain.
func (l *loopState) Run(context.Context) error {
	l.g.check("the sweep")
	now := l.srv.now()
	var wallNow int64 // the coarse clock is too coarse for the drain's grace
	if l.srv.draining.Load() {
		wallNow = l.srv.wallClock().UnixNano()
	}
	// Timer handlers may close connections, which removes them from
	// l.conns, so iterate over a copy.
	l.close = append(l.close[:0], l.conns...)
	var held int64
	for i, c := range l.close {
		if !c.closed {
			c.collectSettled()
		}
		if l.srv.draining.Load() && !c.closed && c.isIdle() {
			c.closeIfIdleForDrain(wallNow)
		} else {
			c.onTimer(now)
		}
		held += c.heldBytes()
		l.close[i] = nil
	}
	l.held.Store(held)
	return nil
}

// isIdle: nothing in flight and nothing of a request received.
func (c *conn) isIdle() bool {
	return c.phase == phaseIdle && c.proto.quiet() && !c.proto.queued()
}
