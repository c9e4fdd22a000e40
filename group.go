package gwist

import "net/http"

// Group is a set of routes under a common prefix with their own middleware.
// The App is itself the root Group.
type Group struct {
	app    *App
	parent *Group
	prefix string
	mw     []Middleware
	// stream: routes registered here (and in sub-groups) read their
	// body as a stream of at most streamMax bytes (0: no limit).
	stream    bool
	streamMax int64
}

// Group returns a sub-group for routes under prefix, with optional
// middleware of its own (applied inside the parent's).
func (g *Group) Group(prefix string, mw ...Middleware) *Group {
	g.app.mustNotBeFrozen()
	return &Group{app: g.app, parent: g, prefix: g.prefix + prefix, mw: mw, stream: g.stream, streamMax: g.streamMax}
}

// StreamBody returns a view of the group whose routes (and those of its
// sub-groups) get their request body as a stream: the handler runs as soon
// as the head has arrived and reads the body with Ctx.BodyReader while it
// arrives, so an upload of any size needs no more memory than
// WithMaxBodyBuffered (128 KiB) per connection. max bounds the body (0: no
// limit, instead of WithMaxBodyBytes): a larger Content-Length is refused
// with 413 before the handler runs; a chunked body that passes it makes
// BodyReader's Read fail with ErrBodyTooLarge, and the client gets 413 unless
// the response had begun to stream; the connection closes either way.
// Ctx.Body is nil on such routes. Middleware added to the view with Use
// applies to its routes only; the group's own applies too.
//
// Such routes always run on the worker pool, also with WithInline(true):
// a handler waiting for its body must not hold up an event loop.
func (g *Group) StreamBody(max int64) *Group {
	g.app.mustNotBeFrozen()
	return &Group{app: g.app, parent: g, prefix: g.prefix, stream: true, streamMax: max}
}

// Use adds middleware to the group: it wraps every route of the group and
// its sub-groups, whether registered before or after this call.
//
// On the App, middleware runs for every request, before routing: around
// the routes, and around the router's own answers too (404, 405, the
// automatic OPTIONS, the trailing-slash redirects) and the error handler's.
// The order for a request is: App.Use middleware (in the order added),
// routing, then the groups' middleware (outer group first), the route's
// own (App.GET(path, h, mw...)), and the handler. Route() is "" in
// app-level middleware until next returns.
func (g *Group) Use(mw ...Middleware) {
	g.app.mustNotBeFrozen()
	g.mw = append(g.mw, mw...)
}

// Handle registers h for method and the group's prefix + pattern, with
// optional per-route middleware. Patterns: static segments, ":name" for one
// segment, "*name" for the rest of the path (last only); the ServeMux forms
// "{name}" and "{name...}" are aliases of these. Conflicting registrations,
// and braces that do not form a whole segment, panic.
func (g *Group) Handle(method, pattern string, h HandlerFunc, mw ...Middleware) {
	g.app.addRoute(g, method, g.prefix+pattern, h, mw)
}

// GET registers a GET route (HEAD is answered by it too, without the body).
func (g *Group) GET(pattern string, h HandlerFunc, mw ...Middleware) {
	g.Handle(http.MethodGet, pattern, h, mw...)
}

// HEAD registers a HEAD route, overriding the automatic one from GET.
func (g *Group) HEAD(pattern string, h HandlerFunc, mw ...Middleware) {
	g.Handle(http.MethodHead, pattern, h, mw...)
}

// POST registers a POST route.
func (g *Group) POST(pattern string, h HandlerFunc, mw ...Middleware) {
	g.Handle(http.MethodPost, pattern, h, mw...)
}

// PUT registers a PUT route.
func (g *Group) PUT(pattern string, h HandlerFunc, mw ...Middleware) {
	g.Handle(http.MethodPut, pattern, h, mw...)
}

// PATCH registers a PATCH route.
func (g *Group) PATCH(pattern string, h HandlerFunc, mw ...Middleware) {
	g.Handle(http.MethodPatch, pattern, h, mw...)
}

// DELETE registers a DELETE route.
func (g *Group) DELETE(pattern string, h HandlerFunc, mw ...Middleware) {
	g.Handle(http.MethodDelete, pattern, h, mw...)
}

// OPTIONS registers an OPTIONS route, overriding the automatic answer.
func (g *Group) OPTIONS(pattern string, h HandlerFunc, mw ...Middleware) {
	g.Handle(http.MethodOptions, pattern, h, mw...)
}

// anyMethods are the methods Any registers.
var anyMethods = []string{
	http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut,
	http.MethodPatch, http.MethodDelete, http.MethodOptions,
}

// Any registers h for GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS.
func (g *Group) Any(pattern string, h HandlerFunc, mw ...Middleware) {
	for _, m := range anyMethods {
		g.Handle(m, pattern, h, mw...)
	}
}
