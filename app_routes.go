package gwist

import "io/fs"

// The App is its own root Group. These methods are the root Group's (see
// Group), declared again on App so that its documentation lists them.

// Group returns a group for routes under prefix, with optional middleware
// of its own (see Group.Group).
func (a *App) Group(prefix string, mw ...Middleware) *Group { return a.rootGroup.Group(prefix, mw...) }

// StreamBody returns a view of the App whose routes get their request body
// as a stream of at most max bytes (0: no limit; see Group.StreamBody).
func (a *App) StreamBody(max int64) *Group { return a.rootGroup.StreamBody(max) }

// Use adds middleware that runs for every request, before routing (see
// Group.Use for the order).
func (a *App) Use(mw ...Middleware) { a.rootGroup.Use(mw...) }

// Handle registers h for method and pattern (see Group.Handle for the
// patterns).
func (a *App) Handle(method, pattern string, h HandlerFunc, mw ...Middleware) {
	a.rootGroup.Handle(method, pattern, h, mw...)
}

// GET registers a GET route (HEAD is answered by it too, without the body).
func (a *App) GET(pattern string, h HandlerFunc, mw ...Middleware) {
	a.rootGroup.GET(pattern, h, mw...)
}

// HEAD registers a HEAD route, overriding the automatic one from GET.
func (a *App) HEAD(pattern string, h HandlerFunc, mw ...Middleware) {
	a.rootGroup.HEAD(pattern, h, mw...)
}

// POST registers a POST route.
func (a *App) POST(pattern string, h HandlerFunc, mw ...Middleware) {
	a.rootGroup.POST(pattern, h, mw...)
}

// PUT registers a PUT route.
func (a *App) PUT(pattern string, h HandlerFunc, mw ...Middleware) {
	a.rootGroup.PUT(pattern, h, mw...)
}

// PATCH registers a PATCH route.
func (a *App) PATCH(pattern string, h HandlerFunc, mw ...Middleware) {
	a.rootGroup.PATCH(pattern, h, mw...)
}

// DELETE registers a DELETE route.
func (a *App) DELETE(pattern string, h HandlerFunc, mw ...Middleware) {
	a.rootGroup.DELETE(pattern, h, mw...)
}

// OPTIONS registers an OPTIONS route, overriding the automatic answer.
func (a *App) OPTIONS(pattern string, h HandlerFunc, mw ...Middleware) {
	a.rootGroup.OPTIONS(pattern, h, mw...)
}

// Any registers h for GET, HEAD, POST, PUT, PATCH, DELETE and OPTIONS.
func (a *App) Any(pattern string, h HandlerFunc, mw ...Middleware) {
	a.rootGroup.Any(pattern, h, mw...)
}

// Static serves the files under the directory dir at prefix (see
// Group.Static).
func (a *App) Static(prefix, dir string, opts ...StaticOption) {
	a.rootGroup.Static(prefix, dir, opts...)
}

// StaticFS serves the files of fsys at prefix (see Group.StaticFS).
func (a *App) StaticFS(prefix string, fsys fs.FS, opts ...StaticOption) {
	a.rootGroup.StaticFS(prefix, fsys, opts...)
}
