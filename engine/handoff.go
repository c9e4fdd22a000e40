//go:build unix

package engine

import (
	"context"

	"github.com/panjf2000/gnet/v2"
)

// handoff is the one way work done off a connection's loop reaches it: an
// HTTP/2 connection's streams handing over their responses (h2ready.go), a
// detached response's writes (detached.go, h2detached.go), a WebSocket's
// writers (wsconn.go), a request body's reader telling its source
// (bodypipe.go). The owner keeps what it hands over under its own lock,
// and posts its task with that lock held; however many posts come before
// the loop runs the task, at most one is queued, and the task marks it
// taken (under the same lock) before it looks at what was handed over.
type handoff struct {
	queued bool
}

// post queues task on el unless it is queued already. It reports false
// when the loop is gone (the engine is stopping), and the owner then ends
// what it was doing. Called with the owner's lock held.
func (h *handoff) post(el gnet.EventLoop, task gnet.Runnable) bool {
	if h.queued {
		return true
	}
	if err := el.Execute(context.Background(), task); err != nil {
		return false
	}
	h.queued = true
	return true
}

// taken: the loop runs the task now; a later post queues it again. Called
// with the owner's lock held.
func (h *handoff) taken() { h.queued = false }
