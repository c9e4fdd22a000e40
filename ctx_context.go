package gwist

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"
)

// Context returns the request's context: cancelled when the client goes
// away or the server force-closes the connection, and the one SetContext
// set, if any. The default costs no allocation until Done is called.
func (c *Ctx) Context() context.Context {
	if c.ctx != nil {
		return c.ctx
	}
	return (*requestContext)(c)
}

// SetContext replaces the request's context, for middleware that adds
// values (tracing spans, loggers) or a deadline. Derive ctx from
// c.Context() to keep the client-close cancellation and the earlier
// values; a ctx that is not derived from it gets the cancellation linked
// in (which costs a goroutine for the rest of the request), so that a
// handler still sees the client leave. The context is the request's: it
// is cancelled, and SetContext's effects undone, when the handlers return.
func (c *Ctx) SetContext(ctx context.Context) {
	if ctx == nil {
		c.ctx = nil
		return
	}
	if ctx.Value(requestContextKey{}) == c {
		c.ctx = &derivedContext{Context: ctx, c: c}
		return
	}
	linked, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(c.Context(), func() { cancel(context.Canceled) })
	c.ctxStops = append(c.ctxStops, func() { stop(); cancel(context.Canceled) })
	c.ctx = context.WithValue(linked, requestContextKey{}, c)
}

// derivedContext is a context SetContext was given that derives from the
// request's (context.WithValue(c.Context(), ...), say). context.WithValue
// hides the request context's AfterFunc, so contexts derived from it in
// turn (WithCancel, WithTimeout) would each start a goroutine that reads
// the request context later, when the Ctx may serve another request (a
// data race, and a wait on the wrong request); derivedContext gives the
// AfterFunc back.
type derivedContext struct {
	context.Context
	c *Ctx
}

// AfterFunc is the request context's when ctx's cancellation is the
// request's own (a chain of values over it), context.AfterFunc otherwise
// (ctx has a cancellation of its own, which the context package finds
// without a goroutine).
func (d *derivedContext) AfterFunc(f func()) (stop func() bool) {
	rc := (*requestContext)(d.c)
	if d.Context.Done() == rc.Done() {
		return rc.AfterFunc(f)
	}
	return context.AfterFunc(d.Context, f)
}

// requestContextKey marks contexts derived from a request's context: its
// value is the Ctx.
type requestContextKey struct{}

// requestContext is a Ctx seen as its request's base context: the engine's
// cancellation, plus the mark SetContext looks for.
type requestContext Ctx

func (r *requestContext) Deadline() (time.Time, bool) { return r.ex.Context().Deadline() }
func (r *requestContext) Done() <-chan struct{}       { return r.ex.Context().Done() }
func (r *requestContext) Err() error                  { return r.ex.Context().Err() }

// AfterFunc makes context.WithCancel, WithTimeout and AfterFunc on the
// request's context take its done channel now, on the handler's goroutine.
// Without it the context package starts a goroutine that calls Done later,
// when this Ctx may already serve another request (a data race, and a wait
// on the wrong request).
func (r *requestContext) AfterFunc(f func()) (stop func() bool) {
	if a, ok := r.ex.Context().(interface{ AfterFunc(func()) func() bool }); ok {
		return a.AfterFunc(f) // the engine's: no goroutine until it is cancelled
	}
	return afterDone(r.Done(), f)
}

// afterDone runs f on its own goroutine once done is closed, unless stop
// is called first (stop reports whether it stopped f), as
// context.AfterFunc does.
func afterDone(done <-chan struct{}, f func()) (stop func() bool) {
	const pending, ran, stopped = 0, 1, 2
	var state atomic.Int32
	stopCh := make(chan struct{})
	go func() {
		select {
		case <-done:
			if state.CompareAndSwap(pending, ran) {
				f()
			}
		case <-stopCh:
		}
	}()
	return func() bool {
		if state.CompareAndSwap(pending, stopped) {
			close(stopCh)
			return true
		}
		return false
	}
}

func (r *requestContext) Value(key any) any {
	if _, ok := key.(requestContextKey); ok {
		return (*Ctx)(r)
	}
	return r.ex.Context().Value(key) // under ServeHTTP, the http.Request's values
}

// ctxValue is one Set value.
type ctxValue struct {
	key string
	val any
}

// Set stores a request-scoped value under key, replacing an earlier one.
// Values are cleared when the request ends; a request that sets none costs
// nothing. Middleware should use keys of their own (a package prefix).
func (c *Ctx) Set(key string, val any) {
	for i := range c.values {
		if c.values[i].key == key {
			c.values[i].val = val
			return
		}
	}
	c.values = append(c.values, ctxValue{key: key, val: val})
}

// Get returns the value Set stored under key, or nil.
func (c *Ctx) Get(key string) any {
	for i := range c.values {
		if c.values[i].key == key {
			return c.values[i].val
		}
	}
	return nil
}

// RequestIDKey is the Set/Get key under which a request ID is kept as a
// string (middleware.RequestID sets it); gwist's own log lines about a
// request include it when present.
const RequestIDKey = "gwist.request_id"

// requestID returns the request ID Set under RequestIDKey, or "".
func (c *Ctx) requestID() string {
	id, _ := c.Get(RequestIDKey).(string)
	return id
}

// Logger is the App's logger (WithLogger, or slog.Default()), for
// middleware that logs about the request.
func (c *Ctx) Logger() *slog.Logger { return c.app.logger() }
