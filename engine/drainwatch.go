//go:build unix

package engine

import (
	"context"
	"time"
)

// The drain watch. gnet does not say when a connection's output drains,
// and a client that only reads sends nothing that would bring the loop
// back. Two drivers wait for it:
//
//   - HTTP/2 keeps at most h2OutboundTarget of response DATA below its
//     scheduler (gnet's buffer and the kernel's send queue), so that a
//     small response is never queued behind megabytes of downloads
//     (h2driver.go outboundRoom); when output stops at the target with
//     DATA waiting, it refills once that has drained (a client with large
//     windows, curl's are 32 MiB, sends nothing meanwhile).
//   - HTTP/1 pauses parsing while more than MaxOutboundBytes waits in
//     gnet's buffer; requests the client pipelined behind a large response
//     are already read, and nothing else would resume their parse before
//     the sweep (a quarter second later).
//
// So the driver arms a watch: a timer brings the loop back after
// drainWatchMin while the output below drains between looks, doubled (up
// to 64 ms) each time it has not moved, so that a client that stopped
// reading costs a wake-up now and then, not a busy loop.

// drainWatchMin is the first delay; drainWatchMin << drainWatchShiftMax
// (64 ms) the longest.
const drainWatchMin = time.Millisecond

// drainWatch is one connection's watch, small enough for the padding of
// h1Driver (conn's size class: size_test.go). Loop only.
type drainWatch struct {
	mark  int32 // outputBelow (capped) when the timer was armed
	armed bool  // a timer runs
	shift uint8 // the next timer's delay is drainWatchMin << shift
}

// drainWatchShiftMax is the longest delay's shift.
const drainWatchShiftMax = 6

// markBelow is outputBelow as a mark.
func (c *conn) markBelow() int32 { return int32(min(c.outputBelow(), 1<<31-1)) }

// drainLook is a watch's timer firing, as the loop's task: then looks
// again (it arms the watch anew if it still waits).
type drainLook struct {
	c    *conn
	p    protocol // the driver that armed it; a look for another is dropped
	w    *drainWatch
	then func()
}

// armDrainWatch starts w's timer unless it runs: once it fires, the loop
// runs then for driver p. Loop only.
func (c *conn) armDrainWatch(w *drainWatch, p protocol, then func()) {
	if w.armed || c.closed {
		return
	}
	w.armed = true
	w.mark = c.markBelow()
	el, look := c.el, &drainLook{c: c, p: p, w: w, then: then}
	time.AfterFunc(drainWatchMin<<w.shift, func() {
		_ = el.Execute(context.Background(), look) // a stopped loop closes the connection anyway
	})
}

// Run is called on the loop.
func (l *drainLook) Run(context.Context) error {
	c, w := l.c, l.w
	w.armed = false
	if c.closed || c.proto != l.p {
		return nil
	}
	if c.markBelow() < w.mark {
		w.shift = 0 // the peer reads
	} else {
		w.shift = min(w.shift+1, drainWatchShiftMax)
	}
	c.beginLoopTask()
	l.then()
	c.finishCallback()
	return nil
}

// outputBelow is what is queued below the driver: gnet's buffer and the
// kernel's send queue. Loop only.
func (c *conn) outputBelow() int {
	return c.gc.OutboundBuffered() + max(0, sendQueued(c.fd))
}
