package router

import (
	"fmt"
	"slices"
	"strings"
)

// Status says what Lookup found.
type Status uint8

const (
	// Found means a value is registered for the method and path (for HEAD,
	// possibly the GET value).
	Found Status = iota
	// NotFound means no method has a route for the path.
	NotFound
	// MethodNotAllowed means the path exists for other methods only; use
	// Router.Allowed for the Allow header.
	MethodNotAllowed
	// RedirectTrailingSlash means there is no route, but the path with its
	// trailing '/' removed or added has one for this method; Result.Redirect
	// is that path.
	RedirectTrailingSlash
	// AutoOptions means an OPTIONS request for a path that exists under some
	// method but has no OPTIONS route: answer 204 with Router.Allowed as Allow.
	AutoOptions
)

// String returns the name of the status, e.g. "MethodNotAllowed".
func (s Status) String() string {
	switch s {
	case Found:
		return "Found"
	case NotFound:
		return "NotFound"
	case MethodNotAllowed:
		return "MethodNotAllowed"
	case RedirectTrailingSlash:
		return "RedirectTrailingSlash"
	case AutoOptions:
		return "AutoOptions"
	}
	return fmt.Sprintf("Status(%d)", uint8(s))
}

// Result is what Lookup returns.
type Result[H any] struct {
	// Handler is the registered value; the zero value unless Status is Found.
	Handler H
	// Status says what was found.
	Status Status
	// Pattern is the registered pattern that matched (e.g. "/users/:id"),
	// for metrics and logging; "" unless Status is Found.
	Pattern string
	// Redirect is the path to redirect to, only with RedirectTrailingSlash.
	Redirect string
}

// Route is one registration, as listed by Routes.
type Route struct{ Method, Pattern string }

// tree is the radix tree of one method.
type tree[H any] struct {
	method string
	root   *node[H]
}

// Router maps (method, path) to values of type H. Register everything with
// Handle before serving; Lookup, Allowed and Routes are then safe for
// concurrent use (they take no locks and write nothing shared).
type Router[H any] struct {
	// RedirectTrailingSlash enables the trailing-slash redirect suggestion
	// (true from New).
	RedirectTrailingSlash bool

	trees     []tree[H] // in order of first registration per method
	routes    []Route
	maxParams int
}

// New returns an empty router with RedirectTrailingSlash enabled.
func New[H any]() *Router[H] {
	return &Router[H]{RedirectTrailingSlash: true}
}

// Handle registers h for method and pattern (see the package documentation
// for the pattern syntax). It panics on an invalid method or pattern, and on
// a registration that conflicts with an existing one (same method and
// pattern, or different wildcard names at the same position); the message
// names both patterns. A panicking Handle leaves the router as it was.
func (r *Router[H]) Handle(method, pattern string, h H) {
	if !validMethod(method) {
		panic(fmt.Sprintf("router: invalid method %q for pattern %q", method, pattern))
	}
	pieces, err := parsePattern(pattern)
	if err != nil {
		panic(fmt.Sprintf("router: invalid pattern %q: %v", pattern, err))
	}
	root := r.tree(method)
	if root == nil {
		root = &node[H]{}
		r.trees = append(r.trees, tree[H]{method: method, root: root})
	}
	root.insert(method, pattern, pieces, h)
	r.routes = append(r.routes, Route{method, pattern})
	wild := 0
	for _, p := range pieces {
		if p.kind != pieceStatic {
			wild++
		}
	}
	r.maxParams = max(r.maxParams, wild)
}

// MaxParams returns the largest number of parameters any registered pattern
// has: a Params with that capacity never grows in Lookup.
func (r *Router[H]) MaxParams() int { return r.maxParams }

// tree returns the root for method, or nil.
func (r *Router[H]) tree(method string) *node[H] {
	for i := range r.trees {
		if r.trees[i].method == method {
			return r.trees[i].root
		}
	}
	return nil
}

// Lookup finds the value for method and path. It truncates *ps to length 0
// and appends the parameters of the match (values are substrings of path);
// ps may be nil when the parameters are not wanted. When cap(*ps) is below
// MaxParams, Lookup replaces *ps once with a large enough slice; after that a
// reused ps makes Lookup allocate nothing, except the Redirect string when a
// trailing '/' has to be added. See the package documentation for the order
// in which outcomes are tried.
func (r *Router[H]) Lookup(method, path string, ps *Params) Result[H] {
	if ps != nil {
		if cap(*ps) < r.maxParams {
			*ps = make(Params, 0, r.maxParams)
		} else {
			*ps = (*ps)[:0]
		}
	}
	root := r.tree(method)
	if rt := find(root, path, ps); rt != nil {
		return Result[H]{Handler: rt.handler, Status: Found, Pattern: rt.pattern}
	}
	var get *node[H] // the fallback tree for HEAD
	if method == "HEAD" {
		get = r.tree("GET")
		if rt := find(get, path, ps); rt != nil {
			return Result[H]{Handler: rt.handler, Status: Found, Pattern: rt.pattern}
		}
	}
	if method == "OPTIONS" && r.exists(path) {
		return Result[H]{Status: AutoOptions}
	}
	if r.RedirectTrailingSlash && path != "/" && path != "" {
		if to, ok := redirect(root, path); ok {
			return Result[H]{Status: RedirectTrailingSlash, Redirect: to}
		}
		if to, ok := redirect(get, path); ok {
			return Result[H]{Status: RedirectTrailingSlash, Redirect: to}
		}
	}
	if r.exists(path) {
		return Result[H]{Status: MethodNotAllowed}
	}
	return Result[H]{Status: NotFound}
}

// find matches path in the tree at root (which may be nil).
func find[H any](root *node[H], path string, ps *Params) *route[H] {
	if root == nil {
		return nil
	}
	return root.find(path, false, ps)
}

// redirect reports the trailing-slash variant of path that the tree at root
// (which may be nil) matches.
func redirect[H any](root *node[H], path string) (string, bool) {
	if root == nil {
		return "", false
	}
	if strings.HasSuffix(path, "/") {
		to := path[:len(path)-1]
		return to, root.find(to, false, nil) != nil
	}
	if root.find(path, true, nil) != nil {
		return path + "/", true
	}
	return "", false
}

// exists reports whether any method has a route for path.
func (r *Router[H]) exists(path string) bool {
	for i := range r.trees {
		if r.trees[i].root.find(path, false, nil) != nil {
			return true
		}
	}
	return false
}

// Allowed returns the Allow header value for path: the methods that have a
// route for it, plus HEAD when GET is there and OPTIONS always, sorted and
// joined by ", " (e.g. "GET, HEAD, OPTIONS, POST"). It returns "" when no
// method has the path. It allocates; it is meant for 405 and OPTIONS answers.
func (r *Router[H]) Allowed(path string) string {
	var ms []string
	for i := range r.trees {
		if r.trees[i].root.find(path, false, nil) != nil {
			ms = append(ms, r.trees[i].method)
		}
	}
	if len(ms) == 0 {
		return ""
	}
	if slices.Contains(ms, "GET") && !slices.Contains(ms, "HEAD") {
		ms = append(ms, "HEAD")
	}
	if !slices.Contains(ms, "OPTIONS") {
		ms = append(ms, "OPTIONS")
	}
	slices.Sort(ms)
	return strings.Join(ms, ", ")
}

// Routes lists the registered (method, pattern) pairs in registration order.
// The slice is a copy.
func (r *Router[H]) Routes() []Route {
	return slices.Clone(r.routes)
}
