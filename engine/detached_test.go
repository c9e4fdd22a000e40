//go:build unix

package engine

import (
	"strings"
	"testing"
	"time"
)

// A detached response closed while its batch is on its way back to the
// loop: the flush that Close queues runs after adopt's own flush has ended
// the response and released the batch. That late flush must leave the
// released batch alone; it once marked it done again, so that the
// connection that took the batch from the pool next released it under its
// worker (seen in CI as a nil dereference in batch.Run).
func TestDetachedCloseBeforeAdoptLeavesBatchAlone(t *testing.T) {
	detached := make(chan *Detached, 1)
	// The handler returns only once the test holds d, so that the worker
	// hands the batch back after send's run of the loop's tasks, not
	// during it (where that run would adopt it before the test looks).
	proceed := make(chan struct{})
	h := newHarness(t, Config{}, func(ex *Exchange) {
		ex.Status = 200
		if ex.Request.Path != "/feed" {
			ex.Body = append(ex.Body, "next"...)
			return
		}
		d, err := ex.Detach(0, nil)
		if err != nil {
			t.Errorf("Detach: %v", err)
			return
		}
		detached <- d
		<-proceed
	})
	p := h.dial()
	p.send("GET /feed HTTP/1.1\r\nHost: x\r\n\r\n")
	var d *Detached
	select {
	case d = <-detached:
	case <-time.After(5 * time.Second):
		t.Fatal("the handler did not detach")
	}
	close(proceed)
	// The worker hands the batch back (a task the harness has not run),
	// then the response ends before the loop adopts it.
	h.waitTasks(1)
	b := p.fc.ctx.(*conn).h1.head
	if b == nil || b.detached != d {
		t.Fatalf("the detached response's batch is not at the head of the queue (%p)", b)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	h.waitTasks(2) // the batch, then Close's flush
	h.run()
	if b.c != nil || b.done {
		t.Fatalf("the released batch was touched after its release: c %p, done %v", b.c, b.done)
	}
	select {
	case <-d.Done():
	default:
		t.Fatal("Done is not closed after Close")
	}
	if got := p.read(); !strings.HasSuffix(got, "0\r\n\r\n") {
		t.Fatalf("the detached response does not end with the last chunk: %q", got)
	}
	// The connection goes on: its next request is served.
	p.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	var got strings.Builder
	h.runUntil("the next response", func() bool {
		got.WriteString(p.read())
		return strings.HasSuffix(got.String(), "next")
	})
}
