package gwist

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/router"
	"github.com/gwist/gwist/tlsstate"
)

// HandlerFunc handles a request. A returned error goes to the App's
// ErrorHandler (an *HTTPError sets the status; anything else is a 500).
type HandlerFunc func(c *Ctx) error

// Middleware wraps a handler; it may act before and after calling next, or
// answer without calling it.
type Middleware func(next HandlerFunc) HandlerFunc

// App is a web application: routes, middleware and the servers that serve
// them. Register routes and middleware before Start or Listen.
type App struct {
	rootGroup // the App is the root Group: App.GET, App.Use, App.Group...

	cfg    config
	router *router.Router[*route]
	routes []*route

	notFound         HandlerFunc // nil: the error handler answers 404
	methodNotAllowed HandlerFunc // nil: the error handler answers 405
	appChain         HandlerFunc // app-level middleware around dispatch

	goneErrs goneErrors // handler errors after the client left: see DefaultErrorHandler
	observer Observer   // SetObserver's; nil: requests are not observed

	readyChecks []readyCheck  // AddReadinessCheck; fixed at Start
	draining    atomic.Bool   // Shutdown began: Readyz answers 503
	drainOnce   sync.Once     // the drain delay, then closing drained
	drained     chan struct{} // closed as the listeners close: see Draining

	mu      sync.Mutex
	frozen  bool
	workers *engine.Workers
	conns   *engine.ConnLimit
	servers []*engine.Server
	group   *engine.LoopGroup
}

// loopGroup is the event loops shared by the App's listeners.
func (a *App) loopGroup() *engine.LoopGroup {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.group == nil {
		a.group = engine.NewLoopGroup()
	}
	return a.group
}

// rootGroup lets App embed its root Group without the field name Group
// shadowing the Group method.
type rootGroup = Group

// route is one registration; its chain is composed when the App starts, so
// middleware added with Use after a route still applies to it.
type route struct {
	method, pattern string
	handler         HandlerFunc
	mw              []Middleware
	group           *Group
	chain           HandlerFunc
	stream          bool  // the body streams (Group.StreamBody)
	streamMax       int64 // its limit; 0 for none
	index           int   // its place in App.routes (Observation.Route)
}

// New returns an App configured by opts.
func New(opts ...Option) *App {
	a := &App{cfg: defaultConfig(), router: router.New[*route](), drained: make(chan struct{})}
	for _, o := range opts {
		o(&a.cfg)
	}
	a.router.RedirectTrailingSlash = a.cfg.redirectTrailingSlash
	if a.cfg.errorHandler == nil {
		a.cfg.errorHandler = DefaultErrorHandler
	}
	a.rootGroup = Group{app: a}
	return a
}

// NotFound sets the handler for requests no route matches, instead of
// the default: a 404 *HTTPError answered by the error handler (so
// WithErrorHandler decides its body: JSONErrorHandler's is JSON).
func (a *App) NotFound(h HandlerFunc) { a.mustNotBeFrozen(); a.notFound = h }

// MethodNotAllowed sets the handler for requests whose path exists only for
// other methods, instead of the default: a 405 *HTTPError answered by the
// error handler. The Allow header is already set when it runs. App-level
// middleware (App.Use) runs around it, as around NotFound.
func (a *App) MethodNotAllowed(h HandlerFunc) { a.mustNotBeFrozen(); a.methodNotAllowed = h }

func (a *App) mustNotBeFrozen() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.frozen {
		panic("gwist: routes and middleware must be registered before Start/Listen")
	}
}

func (a *App) addRoute(g *Group, method, pattern string, h HandlerFunc, mw []Middleware) {
	if h == nil {
		panic("gwist: nil handler for " + method + " " + pattern)
	}
	a.mustNotBeFrozen()
	r := &route{method: method, pattern: pattern, handler: h, mw: mw, group: g, stream: g.stream, streamMax: g.streamMax,
		index: len(a.routes)}
	a.router.Handle(method, pattern, r)
	a.routes = append(a.routes, r)
}

// freeze composes the middleware chains; it runs once, at the first
// Start. App-level middleware (App.Use) wraps routing itself, so it runs
// for every request, the router's own answers included; group and route
// middleware wrap the route's handler, after routing.
func (a *App) freeze() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.frozen {
		return
	}
	a.frozen = true
	for _, r := range a.routes {
		if !r.stream && isNetHTTPRoute(r.handler) {
			// A net/http handler reads its body as it arrives (and may
			// answer while it does: gRPC, Connect), within the App's limit.
			r.stream, r.streamMax = true, a.maxBodyBytes()
		}
		if r.stream {
			a.cfg.engine.StreamBody = a.bodyStreams
		}
		if mayAnswerExtendedConnect(r.handler) { // RFC 8441 over HTTP/2 (ws_route.go)
			a.cfg.engine.H2.EnableConnectProtocol = true
		}
		h := a.chain(r.handler, r.mw)
		for g := r.group; g != nil && g != &a.rootGroup; g = g.parent {
			h = a.chain(h, g.mw)
		}
		r.chain = h
	}
	a.appChain = a.chain(a.dispatch, a.rootGroup.mw)
	if a.observer != nil {
		// Under the lock, so that no request (a concurrent ServeHTTP) is
		// observed before the Observer knows the routes.
		a.observer.Routes(a.routeInfos())
	}
}

// chain wraps h so that mw[0] is outermost. Each middleware's next answers
// the errors it returns before the middleware goes on (see answered).
func (a *App) chain(h HandlerFunc, mw []Middleware) HandlerFunc {
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](a.answered(h))
	}
	return h
}

func (a *App) logger() *slog.Logger {
	if a.cfg.engine.Logger != nil {
		return a.cfg.engine.Logger
	}
	return slog.Default()
}

// Start listens on addr and serves in the background. It returns the bound
// address (useful with port 0). Call it once per listener.
func (a *App) Start(addr string, opts ...ListenOption) (net.Addr, error) {
	return a.start(addr, nil, nil, opts)
}

// start starts one listener, HTTPS when ts is set. It serves the App, or h
// when set.
func (a *App) start(addr string, ts *tlsstate.Server, h engine.Handler, opts []ListenOption) (net.Addr, error) {
	if err := a.optionsErr(); err != nil {
		return nil, err
	}
	a.freeze()
	cfg := a.cfg.engine
	for _, o := range opts {
		o(&listenConfig{engine: &cfg})
	}
	cfg.TLS = ts
	cfg.Conns = a.connLimit()
	cfg.Group = a.loopGroup()
	cfg.Rejected = a.rejected
	if !cfg.Inline || cfg.StreamBody != nil { // streamed bodies are read on workers
		w, err := a.sharedWorkers()
		if err != nil {
			return nil, err
		}
		cfg.Workers = w
	}
	if h == nil {
		h = a.serve
	}
	srv, err := engine.NewServer(cfg, h)
	if err != nil {
		return nil, err
	}
	bound, err := srv.Start(addr)
	if err != nil {
		a.releaseUnusedWorkers()
		return nil, err
	}
	a.mu.Lock()
	a.servers = append(a.servers, srv)
	a.mu.Unlock()
	return bound, nil
}

// connLimit is the connection cap shared by the App's listeners.
func (a *App) connLimit() *engine.ConnLimit {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conns == nil {
		a.conns = engine.NewConnLimit(a.cfg.maxConns)
	}
	return a.conns
}

// releaseUnusedWorkers stops the worker pool when no server uses it (the
// first Start failed), so a failed Start leaves no goroutines behind.
func (a *App) releaseUnusedWorkers() {
	a.mu.Lock()
	w := a.workers
	if len(a.servers) > 0 {
		w = nil
	}
	if w != nil {
		a.workers = nil
	}
	a.mu.Unlock()
	if w != nil {
		_ = w.Release(time.Second)
	}
}

func (a *App) sharedWorkers() (*engine.Workers, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.workers == nil {
		w, err := engine.NewWorkers(a.cfg.workers)
		if err != nil {
			return nil, fmt.Errorf("gwist: worker pool: %w", err)
		}
		a.workers = w
	}
	return a.workers, nil
}

// Listen serves on addr until Shutdown, then returns ErrServerClosed.
func (a *App) Listen(addr string, opts ...ListenOption) error {
	if _, err := a.Start(addr, opts...); err != nil {
		return err
	}
	return a.waitLast()
}

// waitLast waits for the most recently started listener to stop.
func (a *App) waitLast() error {
	a.mu.Lock()
	srv := a.servers[len(a.servers)-1]
	a.mu.Unlock()
	if err := srv.Wait(); err != nil && !errors.Is(err, engine.ErrServerClosed) {
		return err
	}
	return ErrServerClosed
}

// Addrs lists the addresses the App is listening on.
func (a *App) Addrs() []net.Addr {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]net.Addr, len(a.servers))
	for i, s := range a.servers {
		out[i] = s.Addr()
	}
	return out
}

// Shutdown drains the App and stops it. At once Readyz starts answering 503
// (a balancer polling it stops sending new work); after the WithDrainDelay
// delay (none by default) every listener closes, so the kernel refuses new
// connections; idle keep-alive connections are closed, HTTP/1.1 responses
// in flight carry Connection: close, HTTP/2 connections get a GOAWAY,
// SSE feeds and Ctx.SSE streams end (Draining's channel closes), and
// requests in flight run to their end and their responses are written.
// Shutdown returns nil when all of it
// is done. If ctx ends first, the connections still open are closed, their
// requests' contexts cancelled, and Shutdown returns a *ShutdownError that
// says how many were cut and wraps ctx's error.
func (a *App) Shutdown(ctx context.Context) error {
	a.draining.Store(true)
	a.drainOnce.Do(func() {
		if d := a.cfg.drainDelay; d > 0 {
			t := time.NewTimer(d)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
			}
		}
		close(a.drained)
	})
	a.mu.Lock()
	servers := append([]*engine.Server(nil), a.servers...)
	workers := a.workers
	a.mu.Unlock()
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.Shutdown(ctx)
		}()
	}
	wg.Wait()
	if workers != nil {
		wait := time.Second
		if dl, ok := ctx.Deadline(); ok {
			wait = max(time.Until(dl), 10*time.Millisecond)
		}
		_ = workers.Release(wait)
	}
	cut := 0
	for _, s := range servers {
		cut += s.CutConns()
	}
	err := errors.Join(errs...)
	if err != nil && ctx.Err() != nil {
		return &ShutdownError{Cut: cut, Err: err}
	}
	return err
}
