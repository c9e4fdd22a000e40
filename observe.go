package gwist

import (
	"time"
)

// An Observer is told about every request the App answers, once, when its
// handler chain has returned: the hook for metrics (the metrics package is
// one) and for other per-request accounting that must not cost an
// allocation. Set it with App.SetObserver.
//
// Routes is called once, when the App starts (its first Start, Listen or
// ServeHTTP: routes are fixed from then on), before any Observe call.
// routes[i] is the route that Observe reports as Observation.Route == i.
// Routes must not call the App's methods.
//
// Observe runs on the goroutine that ran the request (a worker, or the
// event loop with WithInline), concurrently with other Observe calls: it
// must be safe for concurrent use, must not block, and should not allocate
// or take a lock shared by all requests. It must not keep the Observation's
// Method after it returns.
type Observer interface {
	Routes(routes []RouteInfo)
	Observe(o Observation)
}

// RouteInfo describes a registered route: its method and its pattern as
// written (see Ctx.Route).
type RouteInfo struct {
	Method, Pattern string
}

// Observation is one answered request, as an Observer sees it.
type Observation struct {
	// Route is the index of the matched route in the slice given to
	// Observer.Routes, or -1 when no route matched: 404, 405, automatic
	// OPTIONS and trailing-slash redirects. A HEAD request served by a GET
	// route has that route's index.
	Route int
	// Pattern is the matched route's pattern ("" when Route is -1).
	Pattern string
	// Method is the request method as sent. It points into the request's
	// memory: valid only during Observe.
	Method string
	// Status is the response status (a streamed response's: the one sent).
	Status int
	// ProtoMajor is 1 for HTTP/1.x and 2 for HTTP/2.
	ProtoMajor int
	// TLS reports a request that came over TLS.
	TLS bool
	// Start is when the App began on the request (its app-level
	// middleware), Duration how long until the handler chain returned.
	// Both come from the monotonic clock (Start is the process's start
	// time plus the monotonic time since), so a wall-clock step does not
	// move them.
	// Time the request waited for a worker, and the time its buffered
	// response takes to leave after the handler, are not included; a
	// streamed response is included up to its last Write. Pipelined
	// HTTP/1 requests served one after another (on one worker, or inline in one
	// read) start where the one before ended, one clock reading shared,
	// so the engine's few steps between them count to the later one.
	Start    time.Time
	Duration time.Duration
	// BytesIn is the request body's size: the whole body when it was
	// buffered, the bytes the handler read when it streamed
	// (Group.StreamBody). BytesOut is the response body's size as written
	// by the handler (Ctx.BytesWritten: after a compressing middleware, the
	// compressed size; a HEAD request's body counts though it is not sent).
	BytesIn, BytesOut int64
}

// SetObserver makes o receive every request the App answers (see
// Observer). Call it before Start, at most once; nil leaves the App
// without one. Without an Observer requests pay nothing for the hook; with
// one, two reads of the monotonic clock and the call.
func (a *App) SetObserver(o Observer) {
	a.mustNotBeFrozen()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.observer != nil && o != nil {
		panic("gwist: SetObserver called twice (combine the observers in one)")
	}
	a.observer = o
}

// routeInfos lists the routes in registration order, for Observer.Routes.
func (a *App) routeInfos() []RouteInfo {
	out := make([]RouteInfo, len(a.routes))
	for i, r := range a.routes {
		out[i] = RouteInfo{Method: r.method, Pattern: r.pattern}
	}
	return out
}

// clockBase is the origin of sinceBase: reading the monotonic clock alone
// (time.Since) costs one clock read where time.Now costs two (wall and
// monotonic), and a request needs a start and an end.
var clockBase = time.Now()

func sinceBase() time.Duration { return time.Since(clockBase) }

// observe reports the request c answered to o; serve defers it when the
// App has an Observer, so it runs after the error handler and the panic
// recovery. start is sinceBase() when the request began.
func (a *App) observe(o Observer, c *Ctx, start time.Duration) {
	ex := c.ex
	status := ex.Status
	if status == 0 {
		status = 200
	}
	in := int64(len(ex.Request.Body))
	if ex.StreamedBody() {
		in = c.bodyRead
	}
	end := sinceBase()
	ex.SetClockCarry(int64(end))
	o.Observe(Observation{
		Route:      c.routeIndex,
		Pattern:    c.route,
		Method:     ex.Request.Method,
		Status:     status,
		ProtoMajor: ex.Request.ProtoMajor,
		TLS:        ex.IsTLS(),
		Start:      clockBase.Add(start),
		Duration:   end - start,
		BytesIn:    in,
		BytesOut:   c.written,
	})
}
