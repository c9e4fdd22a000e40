package router

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// build registers each "METHOD /pattern" with the value "METHOD /pattern".
func build(t testing.TB, routes ...string) *Router[string] {
	t.Helper()
	r := New[string]()
	for _, rt := range routes {
		m, p, ok := strings.Cut(rt, " ")
		if !ok {
			t.Fatalf("bad route %q", rt)
		}
		r.Handle(m, p, rt)
	}
	return r
}

// semantics is the route set most table tests run against.
var semantics = []string{
	"GET /",
	"GET /users",
	"POST /users",
	"GET /users/new",
	"GET /users/new/settings",
	"GET /users/:id",
	"GET /users/:id/profile",
	"GET /users/:id/avatar",
	"HEAD /users/:id/avatar",
	"GET /src/:file",
	"GET /src/*path",
	"GET /static/*path",
	"GET /files/:dir/*rest",
	"GET /cors",
	"OPTIONS /cors",
	"GET /dir/",
	"PUT /put/x",
	"GET /v1/items:batch",
	"GET /x/:a/:b/:c",
	"GET /cmd/:tool/",
	"DELETE /cmd/:tool",
}

type lookupCase struct {
	method, path string
	status       Status
	pattern      string // want Result.Pattern (and Handler == method-of-route + pattern)
	handler      string // want Handler when it differs from method+" "+pattern
	params       string // "k=v;k=v" in order
	redirect     string
}

func paramString(ps Params) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(p.Key + "=" + p.Value)
	}
	return b.String()
}

func checkLookup(t *testing.T, r *Router[string], c lookupCase) {
	t.Helper()
	var ps Params
	res := r.Lookup(c.method, c.path, &ps)
	if res.Status != c.status {
		t.Fatalf("%s %q: status %v, want %v (result %+v)", c.method, c.path, res.Status, c.status, res)
	}
	if res.Pattern != c.pattern {
		t.Errorf("%s %q: pattern %q, want %q", c.method, c.path, res.Pattern, c.pattern)
	}
	want := c.handler
	if want == "" && c.status == Found {
		want = c.method + " " + c.pattern
	}
	if res.Handler != want {
		t.Errorf("%s %q: handler %q, want %q", c.method, c.path, res.Handler, want)
	}
	if got := paramString(ps); got != c.params {
		t.Errorf("%s %q: params %q, want %q", c.method, c.path, got, c.params)
	}
	if res.Redirect != c.redirect {
		t.Errorf("%s %q: redirect %q, want %q", c.method, c.path, res.Redirect, c.redirect)
	}
}

func TestLookup(t *testing.T) {
	r := build(t, semantics...)
	long := strings.Repeat("abcdefgh/", 8000) // 72 KB
	longSeg := strings.Repeat("x", 100_000)
	odd := "%2F%20\u00e9:*?#;,=+@!$&'()[]\x00\x7f\xff"
	cases := []lookupCase{
		// root and plain statics
		{method: "GET", path: "/", status: Found, pattern: "/"},
		{method: "GET", path: "/users", status: Found, pattern: "/users"},
		{method: "POST", path: "/users", status: Found, pattern: "/users"},
		{method: "GET", path: "/v1/items:batch", status: Found, pattern: "/v1/items:batch"},
		{method: "GET", path: "/v1/items", status: NotFound},
		{method: "GET", path: "/nope", status: NotFound},
		{method: "GET", path: "", status: NotFound},
		{method: "GET", path: "//users", status: NotFound},
		{method: "GET", path: "/Users", status: NotFound},
		// priorities and backtracking
		{method: "GET", path: "/users/new", status: Found, pattern: "/users/new"},
		{method: "GET", path: "/users/new/settings", status: Found, pattern: "/users/new/settings"},
		{method: "GET", path: "/users/new/profile", status: Found, pattern: "/users/:id/profile", params: "id=new"},
		{method: "GET", path: "/users/newt", status: Found, pattern: "/users/:id", params: "id=newt"},
		{method: "GET", path: "/users/ne", status: Found, pattern: "/users/:id", params: "id=ne"},
		{method: "GET", path: "/users/42", status: Found, pattern: "/users/:id", params: "id=42"},
		{method: "GET", path: "/users/42/profile", status: Found, pattern: "/users/:id/profile", params: "id=42"},
		{method: "GET", path: "/users/42/settings", status: NotFound},
		{method: "GET", path: "/x/1/2/3", status: Found, pattern: "/x/:a/:b/:c", params: "a=1;b=2;c=3"},
		{method: "GET", path: "/x/1//3", status: NotFound},
		{method: "GET", path: "/x/1/2/3/4", status: NotFound},
		// param vs catch-all at the same position
		{method: "GET", path: "/src/a.go", status: Found, pattern: "/src/:file", params: "file=a.go"},
		{method: "GET", path: "/src/a/b.go", status: Found, pattern: "/src/*path", params: "path=a/b.go"},
		{method: "GET", path: "/src/", status: Found, pattern: "/src/*path", params: "path="},
		{method: "GET", path: "/src//", status: Found, pattern: "/src/*path", params: "path=/"},
		// catch-all edge cases
		{method: "GET", path: "/static/css/a.css", status: Found, pattern: "/static/*path", params: "path=css/a.css"},
		{method: "GET", path: "/static/", status: Found, pattern: "/static/*path", params: "path="},
		{method: "GET", path: "/static//x/", status: Found, pattern: "/static/*path", params: "path=/x/"},
		{method: "GET", path: "/static", status: RedirectTrailingSlash, redirect: "/static/"},
		{method: "GET", path: "/staticx", status: NotFound},
		{method: "GET", path: "/files/d/", status: Found, pattern: "/files/:dir/*rest", params: "dir=d;rest="},
		{method: "GET", path: "/files/d/a/b", status: Found, pattern: "/files/:dir/*rest", params: "dir=d;rest=a/b"},
		{method: "GET", path: "/files/d", status: RedirectTrailingSlash, redirect: "/files/d/"},
		{method: "GET", path: "/files//a", status: NotFound},
		// odd bytes and long paths, verbatim
		{method: "GET", path: "/users/" + odd, status: Found, pattern: "/users/:id", params: "id=" + odd},
		{method: "GET", path: "/users/a%2Fb/profile", status: Found, pattern: "/users/:id/profile", params: "id=a%2Fb"},
		{method: "GET", path: "/users/./profile", status: Found, pattern: "/users/:id/profile", params: "id=."},
		{method: "GET", path: "/static/" + long, status: Found, pattern: "/static/*path", params: "path=" + long},
		{method: "GET", path: "/users/" + longSeg, status: Found, pattern: "/users/:id", params: "id=" + longSeg},
		{method: "GET", path: "/" + long, status: NotFound},
		// HEAD falls back to GET; an explicit HEAD wins
		{method: "HEAD", path: "/users/42", status: Found, pattern: "/users/:id", handler: "GET /users/:id", params: "id=42"},
		{method: "HEAD", path: "/", status: Found, pattern: "/", handler: "GET /"},
		{method: "HEAD", path: "/users/42/avatar", status: Found, pattern: "/users/:id/avatar", params: "id=42"},
		{method: "GET", path: "/users/42/avatar", status: Found, pattern: "/users/:id/avatar", params: "id=42"},
		{method: "HEAD", path: "/put/x", status: MethodNotAllowed},
		{method: "HEAD", path: "/nope", status: NotFound},
		// OPTIONS
		{method: "OPTIONS", path: "/users/42", status: AutoOptions},
		{method: "OPTIONS", path: "/put/x", status: AutoOptions},
		{method: "OPTIONS", path: "/cors", status: Found, pattern: "/cors"},
		{method: "OPTIONS", path: "/nope", status: NotFound},
		{method: "OPTIONS", path: "*", status: NotFound},
		// 405
		{method: "DELETE", path: "/users", status: MethodNotAllowed},
		{method: "PUT", path: "/users/42", status: MethodNotAllowed},
		{method: "GET", path: "/put/x", status: MethodNotAllowed},
		{method: "BREW", path: "/users", status: MethodNotAllowed},
		{method: "BREW", path: "/nope", status: NotFound},
		// trailing slash, both directions, any method
		{method: "GET", path: "/users/", status: RedirectTrailingSlash, redirect: "/users"},
		{method: "GET", path: "/dir", status: RedirectTrailingSlash, redirect: "/dir/"},
		{method: "HEAD", path: "/dir", status: RedirectTrailingSlash, redirect: "/dir/"},
		{method: "GET", path: "/users/42/profile/", status: RedirectTrailingSlash, redirect: "/users/42/profile"},
		{method: "PUT", path: "/put/x/", status: RedirectTrailingSlash, redirect: "/put/x"},
		{method: "GET", path: "/cmd/go", status: RedirectTrailingSlash, redirect: "/cmd/go/"},
		{method: "DELETE", path: "/cmd/go/", status: RedirectTrailingSlash, redirect: "/cmd/go"},
		{method: "GET", path: "/cmd/go/", status: Found, pattern: "/cmd/:tool/", params: "tool=go"},
		{method: "POST", path: "/dir", status: NotFound}, // no POST tree match either way
		{method: "POST", path: "/users/", status: RedirectTrailingSlash, redirect: "/users"},
		{method: "DELETE", path: "/users/", status: NotFound},    // no DELETE /users: no redirect, and /users/ exists nowhere
		{method: "PUT", path: "/dir/", status: MethodNotAllowed}, // PUT tree has no /dir: 405, not a redirect
		{method: "GET", path: "/users//", status: NotFound},
	}
	for _, c := range cases {
		name := c.method + " " + c.path
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) { checkLookup(t, r, c) })
	}
}

func TestPostTrailingSlashRedirect(t *testing.T) {
	// A redirect is only suggested within the request method's tree.
	r := build(t, "POST /users", "GET /other/")
	checkLookup(t, r, lookupCase{method: "POST", path: "/users/", status: RedirectTrailingSlash, redirect: "/users"})
	checkLookup(t, r, lookupCase{method: "GET", path: "/users/", status: NotFound})
	checkLookup(t, r, lookupCase{method: "GET", path: "/users", status: MethodNotAllowed})
}

func TestRedirectTrailingSlashDisabled(t *testing.T) {
	r := build(t, semantics...)
	r.RedirectTrailingSlash = false
	for _, c := range []lookupCase{
		{method: "GET", path: "/dir", status: NotFound},
		{method: "GET", path: "/users/", status: NotFound},
		{method: "GET", path: "/static", status: NotFound},
		{method: "GET", path: "/cmd/go", status: MethodNotAllowed}, // DELETE /cmd/:tool
	} {
		checkLookup(t, r, c)
	}
}

func TestNoRedirectForRoot(t *testing.T) {
	r := build(t, "GET //", "GET /a")
	checkLookup(t, r, lookupCase{method: "GET", path: "/", status: NotFound})
	checkLookup(t, r, lookupCase{method: "GET", path: "//", status: Found, pattern: "//"})
	checkLookup(t, r, lookupCase{method: "GET", path: "/a/", status: RedirectTrailingSlash, redirect: "/a"})

	r = build(t, "GET /")
	checkLookup(t, r, lookupCase{method: "GET", path: "/", status: Found, pattern: "/"})
	checkLookup(t, r, lookupCase{method: "GET", path: "//", status: RedirectTrailingSlash, redirect: "/"})
	checkLookup(t, r, lookupCase{method: "GET", path: "", status: NotFound})
}

func TestRootCatchAll(t *testing.T) {
	r := build(t, "GET /*all", "GET /api/:v")
	for _, c := range []lookupCase{
		{method: "GET", path: "/", status: Found, pattern: "/*all", params: "all="},
		{method: "GET", path: "/api/1", status: Found, pattern: "/api/:v", params: "v=1"},
		{method: "GET", path: "/api/1/2", status: Found, pattern: "/*all", params: "all=api/1/2"},
		{method: "GET", path: "/api/", status: Found, pattern: "/*all", params: "all=api/"},
		{method: "POST", path: "/anything", status: MethodNotAllowed},
		{method: "GET", path: "", status: NotFound},
	} {
		checkLookup(t, r, c)
	}
}

func TestSplitKeepsWildcards(t *testing.T) {
	// Registering statics that split existing prefixes must keep the
	// wildcards, routes and children of the split node.
	r := build(t,
		"GET /search/:q",
		"GET /search/",
		"GET /se",
		"GET /s",
		"GET /searching",
		"GET /search/:q/page/*rest",
		"GET /sea/:x",
	)
	for _, c := range []lookupCase{
		{method: "GET", path: "/search/go", status: Found, pattern: "/search/:q", params: "q=go"},
		{method: "GET", path: "/search/", status: Found, pattern: "/search/"},
		{method: "GET", path: "/se", status: Found, pattern: "/se"},
		{method: "GET", path: "/s", status: Found, pattern: "/s"},
		{method: "GET", path: "/sea", status: NotFound},
		{method: "GET", path: "/sea/rch", status: Found, pattern: "/sea/:x", params: "x=rch"},
		{method: "GET", path: "/searching", status: Found, pattern: "/searching"},
		{method: "GET", path: "/search/go/page/2/3", status: Found, pattern: "/search/:q/page/*rest", params: "q=go;rest=2/3"},
		{method: "GET", path: "/search", status: RedirectTrailingSlash, redirect: "/search/"},
	} {
		checkLookup(t, r, c)
	}
}

func TestAllowed(t *testing.T) {
	r := build(t, semantics...)
	for path, want := range map[string]string{
		"/users":           "GET, HEAD, OPTIONS, POST",
		"/users/42":        "GET, HEAD, OPTIONS",
		"/users/42/avatar": "GET, HEAD, OPTIONS",
		"/cors":            "GET, HEAD, OPTIONS",
		"/put/x":           "OPTIONS, PUT",
		"/cmd/go":          "DELETE, OPTIONS",
		"/nope":            "",
		"/users/":          "",
		"":                 "",
	} {
		if got := r.Allowed(path); got != want {
			t.Errorf("Allowed(%q) = %q, want %q", path, got, want)
		}
	}
	if got := New[int]().Allowed("/"); got != "" {
		t.Errorf("empty router: Allowed = %q", got)
	}
}

func TestParamsReuse(t *testing.T) {
	r := build(t, semantics...)
	ps := make(Params, 5, 8)
	res := r.Lookup("GET", "/x/1/2/3", &ps)
	if res.Status != Found || paramString(ps) != "a=1;b=2;c=3" {
		t.Fatalf("got %v %q", res.Status, paramString(ps))
	}
	if ps.Get("b") != "2" || ps.Get("z") != "" {
		t.Errorf("Get: b=%q z=%q", ps.Get("b"), ps.Get("z"))
	}
	if cap(ps) != 8 {
		t.Errorf("capacity changed to %d; Lookup must keep a large enough slice", cap(ps))
	}
	for _, c := range []struct{ method, path string }{
		{"GET", "/users"}, {"GET", "/nope"}, {"PUT", "/users/1"}, {"GET", "/dir"}, {"OPTIONS", "/users/1"},
		{"GET", "/users/1/x/y"}, // param pushed then backtracked
	} {
		ps = append(ps[:0], Param{"stale", "v"})
		r.Lookup(c.method, c.path, &ps)
		if len(ps) != 0 {
			t.Errorf("%s %s: params %q, want none", c.method, c.path, paramString(ps))
		}
	}
	// A nil *Params is allowed when values are not wanted.
	if res := r.Lookup("GET", "/users/7", nil); res.Status != Found || res.Pattern != "/users/:id" {
		t.Errorf("nil ps: %+v", res)
	}
	// A short slice is replaced by one with MaxParams capacity.
	var small Params
	r.Lookup("GET", "/users", &small)
	if cap(small) < r.MaxParams() || r.MaxParams() != 3 {
		t.Errorf("cap %d, MaxParams %d (want 3)", cap(small), r.MaxParams())
	}
}

func TestParamValuesShareThePath(t *testing.T) {
	r := build(t, "GET /u/:id/*rest")
	path := "/u/12345/a/b"
	var ps Params
	r.Lookup("GET", path, &ps)
	if len(ps) != 2 {
		t.Fatalf("params %v", ps)
	}
	// Values are substrings at the right offsets (no copies).
	if unsafeData(ps[0].Value) != unsafeData(path[3:]) || unsafeData(ps[1].Value) != unsafeData(path[9:]) {
		t.Errorf("values are not substrings of the path")
	}
}

func TestRoutes(t *testing.T) {
	r := build(t, semantics...)
	got := r.Routes()
	if len(got) != len(semantics) {
		t.Fatalf("%d routes, want %d", len(got), len(semantics))
	}
	for i, rt := range got {
		if rt.Method+" "+rt.Pattern != semantics[i] {
			t.Errorf("route %d = %v, want %q", i, rt, semantics[i])
		}
	}
	got[0].Pattern = "/changed"
	if r.Routes()[0].Pattern != "/" {
		t.Error("Routes returned shared storage")
	}
}

func TestStatusString(t *testing.T) {
	want := []string{"Found", "NotFound", "MethodNotAllowed", "RedirectTrailingSlash", "AutoOptions", "Status(9)"}
	for i, s := range []Status{Found, NotFound, MethodNotAllowed, RedirectTrailingSlash, AutoOptions, 9} {
		if s.String() != want[i] {
			t.Errorf("%d: %q, want %q", s, s.String(), want[i])
		}
	}
}

func TestGenericHandlerType(t *testing.T) {
	type handler func() int
	r := New[handler]()
	r.Handle("GET", "/a", func() int { return 1 })
	r.Handle("GET", "/b/:x", func() int { return 2 })
	if res := r.Lookup("GET", "/b/z", nil); res.Status != Found || res.Handler() != 2 {
		t.Fatalf("got %+v", res)
	}
	if res := r.Lookup("GET", "/c", nil); res.Handler != nil {
		t.Error("non-Found result carries a handler")
	}
}

func TestConcurrentLookup(t *testing.T) {
	r := build(t, semantics...)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ps Params
			for i := range 500 {
				id := fmt.Sprint(g*1000 + i)
				res := r.Lookup("GET", "/users/"+id+"/profile", &ps)
				if res.Status != Found || ps.Get("id") != id {
					errs <- fmt.Sprintf("goroutine %d: %+v %v", g, res, ps)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
