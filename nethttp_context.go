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
// context of its own: a real context.Context cancelled when the request's
// is (the client left, the server closed the connection, a deadline
// passed) and, as net/http does, when the handler returns; its values are
// the request context's while the handler runs, and none after.

// netValues is the value and deadline part of a net/http handler's
// context: the request context's values while the handler runs. It is
// never done itself; the cancellation is the context.WithCancel (or
// WithDeadline) around it, so that contexts derived from it (WithTimeout,
// WithCancel) find a real cancelCtx and start no goroutine.
type netValues struct {
	mu       sync.RWMutex
	parent   context.Context // the request's context; nil once the handler returned
	call     *mwCall         // the WrapMiddleware call, if any
	deadline time.Time
	hasDL    bool
}

func (v *netValues) Deadline() (time.Time, bool) { return v.deadline, v.hasDL }
func (v *netValues) Done() <-chan struct{}       { return nil }
func (v *netValues) Err() error                  { return nil }

// Value is the request context's value while the handler runs; nil after.
func (v *netValues) Value(key any) any {
	if _, ok := key.(mwCallKey); ok && v.call != nil {
		return v.call
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.parent == nil {
		return nil
	}
	return v.parent.Value(key)
}

// netScope is one net/http handler's context and how it ends.
type netScope struct {
	ctx    context.Context
	vals   *netValues
	cancel context.CancelFunc
	stop   func() bool
}

// newNetScope makes the context of a net/http handler (and of call, for
// WrapMiddleware) from the Ctx's.
func (c *Ctx) newNetScope(call *mwCall) *netScope {
	parent := c.Context()
	v := &netValues{parent: parent, call: call}
	v.deadline, v.hasDL = parent.Deadline()
	s := &netScope{vals: v}
	if v.hasDL {
		s.ctx, s.cancel = context.WithDeadline(v, v.deadline)
	} else {
		s.ctx, s.cancel = context.WithCancel(v)
	}
	s.stop = context.AfterFunc(parent, s.cancel)
	return s
}

// end runs when the handler has returned: its context is cancelled (as
// net/http's is) and no longer reaches the Ctx.
func (s *netScope) end() {
	s.stop()
	s.cancel()
	s.vals.mu.Lock()
	s.vals.parent = nil
	s.vals.mu.Unlock()
}
