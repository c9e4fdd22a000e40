package gwist

import (
	"context"
	"sync"
	"time"
)

// The context of the *http.Request that WrapHandler and WrapMiddleware
// give net/http code. net/http code may use it after the handler returned
// (grpc-go cancels a context derived from it on a goroutine of its own,
// after ServeHTTP), while the request's own context (requestContext) is a
// view of the Ctx, which then serves another request. So the handler gets a
// context of its own, netContext: done when the request's context is (the
// client left, the server closed the connection, a deadline passed; with
// the same Err, and only after it, so that a middleware that checks its own
// context after next sees it done) and, as net/http's, when the handler
// returns; with the request context's deadline, and its values while the
// handler runs (none after).

// netContext is a net/http handler's context.
type netContext struct {
	call     *mwCall // the WrapMiddleware call, if any (immutable)
	deadline time.Time
	hasDL    bool
	done     chan struct{} // immutable

	vmu    sync.RWMutex    // held while a Value reads parent
	parent context.Context // the request's context; nil once the handler returned

	mu     sync.Mutex
	err    error
	afters []*netAfter
	stop   func() bool // ends the link to the parent's cancellation
}

// netAfter is a function to run once the context is done (AfterFunc).
type netAfter struct{ f func() }

// newNetContext makes the context of a net/http handler (and of call, for
// WrapMiddleware) from the Ctx's.
func (c *Ctx) newNetContext(call *mwCall) *netContext {
	parent := c.Context()
	n := &netContext{call: call, parent: parent, done: make(chan struct{})}
	n.deadline, n.hasDL = parent.Deadline()
	// The request context's AfterFunc runs f on the engine's cancellation,
	// and EndContext waits for it before the Ctx is reused: called
	// directly, not through context.AfterFunc, whose own goroutine would
	// run f (and read parent.Err) unwaited for. Another context (a user's
	// through SetContext) goes through the context package.
	f := func() { n.cancel(parent.Err()) }
	if a, ok := parent.(interface{ AfterFunc(func()) func() bool }); ok {
		n.stop = a.AfterFunc(f)
	} else {
		n.stop = context.AfterFunc(parent, f)
	}
	return n
}

func (n *netContext) Deadline() (time.Time, bool) { return n.deadline, n.hasDL }
func (n *netContext) Done() <-chan struct{}       { return n.done }

func (n *netContext) Err() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.err
}

// Value is the request context's value while the handler runs; nil after.
func (n *netContext) Value(key any) any {
	if _, ok := key.(mwCallKey); ok && n.call != nil {
		return n.call
	}
	n.vmu.RLock()
	defer n.vmu.RUnlock()
	if n.parent == nil {
		return nil
	}
	return n.parent.Value(key)
}

// AfterFunc runs f on its own goroutine once the context is done, unless
// stop is called first, as context.AfterFunc does: contexts derived from
// this one (context.WithCancel, WithTimeout) take its cancellation without
// a goroutine of their own.
func (n *netContext) AfterFunc(f func()) (stop func() bool) {
	a := &netAfter{f: f}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.err != nil {
		go f()
		return func() bool { return false }
	}
	n.afters = append(n.afters, a)
	return func() bool {
		n.mu.Lock()
		defer n.mu.Unlock()
		for i, b := range n.afters {
			if b == a {
				n.afters = append(n.afters[:i], n.afters[i+1:]...)
				return true
			}
		}
		return false
	}
}

// cancel makes the context done with err (context.Canceled if nil).
func (n *netContext) cancel(err error) {
	if err == nil {
		err = context.Canceled
	}
	n.mu.Lock()
	if n.err != nil {
		n.mu.Unlock()
		return
	}
	n.err = err
	close(n.done)
	run := n.afters
	n.afters = nil
	n.mu.Unlock()
	for _, a := range run {
		go a.f()
	}
}

// end runs when the handler has returned: its context no longer reaches
// the Ctx and is cancelled (as net/http's is), in that order, so that code
// woken by Done never reads a value of the Ctx's next request.
func (n *netContext) end() {
	n.stop()
	n.vmu.Lock()
	n.parent = nil
	n.vmu.Unlock()
	n.cancel(context.Canceled)
}
