package gwist

import "net/http"

// Group is a set of routes under a common prefix with their own middleware.
// The App is itself the root Group.
type Group struct {
	app    *App
	parent *Group
	prefix string
	mw     []Middleware
}

// Group returns a sub-group for routes under prefix, with optional
// middleware of its own (applied inside the parent's).
func (g *Group) Group(prefix string, mw ...Middleware) *Group {
	g.app.mustNotBeFrozen()
	return &Group{app: g.app, parent: g, prefix: g.prefix + prefix, mw: mw}
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
