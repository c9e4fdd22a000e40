package router

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// githubRoute is one line of testdata/github-api-routes.txt.
type githubRoute struct{ method, pattern string }

// loadGitHub reads the 203 GitHub API routes.
func loadGitHub(tb testing.TB) []githubRoute {
	tb.Helper()
	f, err := os.Open("testdata/github-api-routes.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var routes []githubRoute
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		m, p, ok := strings.Cut(line, " ")
		if !ok {
			tb.Fatalf("bad line %q", line)
		}
		routes = append(routes, githubRoute{m, strings.TrimSpace(p)})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return routes
}

// githubRouter registers every route with its own index as the value.
func githubRouter(routes []githubRoute) *Router[int] {
	r := New[int]()
	for i, rt := range routes {
		r.Handle(rt.method, rt.pattern, i)
	}
	return r
}

// concrete turns a pattern into a request path: ":name" becomes "v-name"
// and "*name" becomes "c/name", values that no static segment uses.
func concrete(pattern string) string {
	var b strings.Builder
	for i, seg := range strings.Split(pattern, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		switch {
		case strings.HasPrefix(seg, ":"):
			b.WriteString("v-" + seg[1:])
		case strings.HasPrefix(seg, "*"):
			b.WriteString("c/" + seg[1:])
		default:
			b.WriteString(seg)
		}
	}
	return b.String()
}

// wantParams lists the parameters concrete puts into pattern.
func wantParams(pattern string) Params {
	var ps Params
	for _, seg := range strings.Split(pattern, "/") {
		switch {
		case strings.HasPrefix(seg, ":"):
			ps = append(ps, Param{seg[1:], "v-" + seg[1:]})
		case strings.HasPrefix(seg, "*"):
			ps = append(ps, Param{seg[1:], "c/" + seg[1:]})
		}
	}
	return ps
}

func TestGitHubRoutes(t *testing.T) {
	routes := loadGitHub(t)
	if len(routes) != 203 {
		t.Fatalf("%d routes, want 203", len(routes))
	}
	r := githubRouter(routes)
	var ps Params
	for i, rt := range routes {
		path := concrete(rt.pattern)
		res := r.Lookup(rt.method, path, &ps)
		if res.Status != Found || res.Handler != i || res.Pattern != rt.pattern {
			t.Errorf("%s %s: %+v, want route %d %s", rt.method, path, res, i, rt.pattern)
			continue
		}
		if got, want := paramString(ps), paramString(wantParams(rt.pattern)); got != want {
			t.Errorf("%s %s: params %q, want %q", rt.method, path, got, want)
		}
		// The pattern itself, taken literally, is a path too: every
		// wildcard segment must match its own name.
		res = r.Lookup(rt.method, rt.pattern, &ps)
		if res.Status != Found {
			t.Errorf("%s %s (literal): %v", rt.method, rt.pattern, res.Status)
		}
		if rt.method == "GET" {
			if res := r.Lookup("HEAD", path, nil); res.Status != Found || res.Handler != i {
				t.Errorf("HEAD %s: %+v", path, res)
			}
		}
		if res := r.Lookup("OPTIONS", path, nil); res.Status != AutoOptions {
			t.Errorf("OPTIONS %s: %v", path, res.Status)
		}
		if !strings.Contains(r.Allowed(path), rt.method) {
			t.Errorf("Allowed(%s) = %q lacks %s", path, r.Allowed(path), rt.method)
		}
		if res := r.Lookup(rt.method, path+"/", nil); res.Status != RedirectTrailingSlash || res.Redirect != path {
			t.Errorf("%s %s/: %+v, want redirect", rt.method, path, res)
		}
	}
	for _, c := range []lookupCase{
		{method: "GET", path: "/repos/gwist/gwist/issues/7", status: Found, pattern: "/repos/:owner/:repo/issues/:number"},
		{method: "PATCH", path: "/user", status: MethodNotAllowed},
		{method: "GET", path: "/repos/gwist", status: NotFound},
	} {
		res := r.Lookup(c.method, c.path, &ps)
		if res.Status != c.status || res.Pattern != c.pattern {
			t.Errorf("%s %s: %+v", c.method, c.path, res)
		}
	}
	if got := r.Allowed("/authorizations/1"); got != "DELETE, GET, HEAD, OPTIONS" {
		t.Errorf("Allowed = %q", got)
	}
}

// TestZeroAllocs checks that lookups with a reused Params allocate nothing.
func TestZeroAllocs(t *testing.T) {
	routes := loadGitHub(t)
	r := githubRouter(routes)
	paths := make([]string, len(routes))
	for i, rt := range routes {
		paths[i] = concrete(rt.pattern)
	}
	var ps Params
	cases := []struct {
		name   string
		status Status
		f      func() Result[int]
	}{
		{"static", Found, func() Result[int] { return r.Lookup("GET", "/user/repos", &ps) }},
		{"param", Found, func() Result[int] { return r.Lookup("GET", "/repos/gwist/gwist/issues/42", &ps) }},
		{"head-fallback", Found, func() Result[int] { return r.Lookup("HEAD", "/repos/gwist/gwist/issues/42", &ps) }},
		{"not-found", NotFound, func() Result[int] { return r.Lookup("GET", "/repos/gwist/gwist/nope/42", &ps) }},
		{"405", MethodNotAllowed, func() Result[int] { return r.Lookup("PATCH", "/repos/gwist/gwist/issues/42", &ps) }},
		{"auto-options", AutoOptions, func() Result[int] { return r.Lookup("OPTIONS", "/user/repos", &ps) }},
		{"redirect-remove", RedirectTrailingSlash, func() Result[int] { return r.Lookup("GET", "/user/repos/", &ps) }},
	}
	for _, c := range cases {
		if res := c.f(); res.Status != c.status {
			t.Fatalf("%s: status %v, want %v", c.name, res.Status, c.status)
		}
		if n := testing.AllocsPerRun(200, func() { c.f() }); n != 0 {
			t.Errorf("%s: %v allocs per lookup, want 0", c.name, n)
		}
	}
	all := testing.AllocsPerRun(20, func() {
		for i, rt := range routes {
			if r.Lookup(rt.method, paths[i], &ps).Status != Found {
				panic("not found")
			}
		}
	})
	if all != 0 {
		t.Errorf("all GitHub routes: %v allocs per pass, want 0", all)
	}
}

func BenchmarkGitHubStatic(b *testing.B) {
	r := githubRouter(loadGitHub(b))
	var ps Params
	b.ReportAllocs()
	for b.Loop() {
		if r.Lookup("GET", "/user/repos", &ps).Status != Found {
			b.Fatal("not found")
		}
	}
}

func BenchmarkGitHubParam(b *testing.B) {
	r := githubRouter(loadGitHub(b))
	var ps Params
	b.ReportAllocs()
	for b.Loop() {
		if r.Lookup("GET", "/repos/julienschmidt/httprouter/issues/42", &ps).Status != Found {
			b.Fatal("not found")
		}
	}
}

func BenchmarkGitHubAll(b *testing.B) {
	routes := loadGitHub(b)
	r := githubRouter(routes)
	paths := make([]string, len(routes))
	for i, rt := range routes {
		paths[i] = concrete(rt.pattern)
	}
	var ps Params
	b.ReportAllocs()
	for b.Loop() {
		for i, rt := range routes {
			if r.Lookup(rt.method, paths[i], &ps).Status != Found {
				b.Fatal("not found")
			}
		}
	}
}

func BenchmarkGitHubNotFound(b *testing.B) {
	r := githubRouter(loadGitHub(b))
	var ps Params
	b.ReportAllocs()
	for b.Loop() {
		if r.Lookup("GET", "/repos/julienschmidt/httprouter/nope/42", &ps).Status != NotFound {
			b.Fatal("found")
		}
	}
}
