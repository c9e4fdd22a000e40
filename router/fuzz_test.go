package router

import (
	"strings"
	"sync"
	"testing"
)

var (
	fuzzOnce   sync.Once
	fuzzRouter *Router[int]
)

// FuzzLookup feeds arbitrary methods and paths to the GitHub tree (plus a
// few wildcard-heavy routes) and checks that Lookup never panics and that
// every result is consistent.
func FuzzLookup(f *testing.F) {
	for _, s := range [][2]string{
		{"GET", "/repos/a/b/issues/1"},
		{"GET", "/user/repos/"},
		{"HEAD", "/users/x"},
		{"OPTIONS", "/authorizations"},
		{"PATCH", "/gists/1"},
		{"GET", "/static/a/b"},
		{"GET", "/"},
		{"", ""},
		{"GET", "//"},
		{"GET", "/repos//x"},
	} {
		f.Add(s[0], s[1])
	}
	fuzzOnce.Do(func() {
		fuzzRouter = githubRouter(loadGitHub(f))
		fuzzRouter.Handle("GET", "/static/*path", -1)
		fuzzRouter.Handle("GET", "/static/:file", -2)
		fuzzRouter.Handle("GET", "/f/:a/:b/*c", -3)
		fuzzRouter.Handle("PUT", "/f/:a/", -4)
	})
	r := fuzzRouter
	f.Fuzz(func(t *testing.T, method, path string) {
		var ps Params
		res := r.Lookup(method, path, &ps)
		switch res.Status {
		case Found:
			if res.Pattern == "" {
				t.Fatalf("Found with no pattern: %+v", res)
			}
			if n := strings.Count(res.Pattern, ":") + strings.Count(res.Pattern, "*"); n != len(ps) {
				t.Fatalf("%s: %d params for %q", path, len(ps), res.Pattern)
			}
			for _, p := range ps {
				if !strings.Contains(path, p.Value) || !strings.Contains(res.Pattern, p.Key) {
					t.Fatalf("param %+v not from %q / %q", p, path, res.Pattern)
				}
			}
		case RedirectTrailingSlash:
			to := res.Redirect
			if path == "/" || (to+"/" != path && path+"/" != to) {
				t.Fatalf("redirect %q for %q", to, path)
			}
			if again := r.Lookup(method, to, nil); again.Status != Found {
				t.Fatalf("redirect target %q: %v", to, again.Status)
			}
			fallthrough
		default:
			if len(ps) != 0 || res.Pattern != "" {
				t.Fatalf("%v with params %v / pattern %q", res.Status, ps, res.Pattern)
			}
		}
		switch allowed := r.Allowed(path); res.Status {
		case MethodNotAllowed, AutoOptions:
			if allowed == "" {
				t.Fatalf("%s %q: %v but Allowed is empty", method, path, res.Status)
			}
		case NotFound:
			if allowed != "" {
				t.Fatalf("%s %q: NotFound but Allowed %q", method, path, allowed)
			}
		}
	})
}
