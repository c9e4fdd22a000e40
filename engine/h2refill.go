//go:build unix

package engine

import (
	"context"
	"time"
)

// Pacing an HTTP/2 connection's output. The driver keeps at most
// h2OutboundTarget of response DATA below its scheduler (gnet's buffer and
// the kernel's send queue), so that a small response is never queued
// behind megabytes of downloads (h2driver.go outboundRoom). gnet does not
// say when the socket drains, and a client with large windows (curl's are
// 32 MiB) sends nothing that would bring the loop back; so when output
// stops at the target with DATA waiting, a timer brings the loop back to
// refill: after h2RefillMin while the queue below drains between looks,
// doubled (up to h2RefillMax) each time it has not moved, so that a client
// that stopped reading costs a wake-up now and then, not a busy loop.

const (
	h2RefillMin = time.Millisecond
	h2RefillMax = 64 * time.Millisecond
)

// h2Refill is an h2Driver as the loop's task.
type h2Refill h2Driver

// armRefill starts the timer unless it runs. Loop only.
func (d *h2Driver) armRefill() {
	if d.refillArmed || d.c.closed {
		return
	}
	if d.refillDelay == 0 {
		d.refillDelay = h2RefillMin
	}
	d.refillArmed = true
	d.refillMark = d.below()
	el, task := d.c.el, (*h2Refill)(d)
	time.AfterFunc(d.refillDelay, func() {
		_ = el.Execute(context.Background(), task) // a stopped loop closes the connection anyway
	})
}

func (t *h2Refill) Run(context.Context) error {
	d := (*h2Driver)(t)
	c := d.c
	d.refillArmed = false
	if c.closed || c.proto != d {
		return nil
	}
	if d.below() < d.refillMark {
		d.refillDelay = h2RefillMin // the peer reads
	} else {
		d.refillDelay = min(2*d.refillDelay, h2RefillMax)
	}
	c.beginLoopTask()
	d.output()
	c.finishCallback()
	return nil
}

// below is what is queued under the scheduler: gnet's buffer and the
// kernel's send queue. Loop only.
func (d *h2Driver) below() int {
	c := d.c
	return c.gc.OutboundBuffered() + max(0, sendQueued(c.fd))
}
