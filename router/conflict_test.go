package router

import (
	"fmt"
	"strings"
	"testing"
)

// panicMessage runs f and returns what it panicked with, or "" if it did not.
func panicMessage(f func()) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
			if msg == "" {
				msg = "<empty panic>"
			}
		}
	}()
	f()
	return ""
}

func TestConflictsPanic(t *testing.T) {
	cases := []struct {
		existing []string
		add      string
		mention  []string // substrings the message must contain
	}{
		{[]string{"GET /users"}, "GET /users", []string{"GET /users conflicts with existing GET /users", "already registered"}},
		{[]string{"GET /users/:id"}, "GET /users/:id", []string{"/users/:id conflicts with existing GET /users/:id"}},
		{[]string{"GET /static/*path"}, "GET /static/*path", []string{"/static/*path conflicts", "existing GET /static/*path"}},
		{[]string{"GET /users/:id"}, "GET /users/:name", []string{"/users/:name", "/users/:id", ":name and :id"}},
		{[]string{"GET /users/:id/profile"}, "GET /users/:name", []string{"/users/:name", "/users/:id/profile"}},
		{[]string{"GET /users/new", "GET /users/:id/x"}, "GET /users/:uid/y", []string{"/users/:uid/y", "/users/:id/x"}},
		{[]string{"GET /a/:x/b/:y"}, "GET /a/:x/b/:z", []string{"/a/:x/b/:z", "/a/:x/b/:y"}},
		{[]string{"GET /static/*path"}, "GET /static/*file", []string{"/static/*file", "/static/*path", "*file and *path"}},
		{[]string{"GET /f/:d/*rest"}, "GET /f/:d/*all", []string{"/f/:d/*all", "/f/:d/*rest"}},
		{[]string{"GET /"}, "GET /", []string{"GET / conflicts with existing GET /"}},
	}
	for _, c := range cases {
		t.Run(c.add, func(t *testing.T) {
			r := build(t, c.existing...)
			m, p, _ := strings.Cut(c.add, " ")
			msg := panicMessage(func() { r.Handle(m, p, "new") })
			if msg == "" {
				t.Fatalf("no panic adding %q to %q", c.add, c.existing)
			}
			for _, s := range c.mention {
				if !strings.Contains(msg, s) {
					t.Errorf("message %q lacks %q", msg, s)
				}
			}
			// The router is unchanged: every existing route still resolves
			// to its old value and the failed route is not listed.
			if got := len(r.Routes()); got != len(c.existing) {
				t.Errorf("%d routes after panic, want %d", got, len(c.existing))
			}
			res := r.Lookup(c.existing[0][:strings.IndexByte(c.existing[0], ' ')], concrete(c.existing[0][strings.IndexByte(c.existing[0], ' ')+1:]), nil)
			if res.Status != Found || res.Handler != c.existing[0] {
				t.Errorf("after panic: %+v", res)
			}
		})
	}
}

func TestCoexisting(t *testing.T) {
	// None of these may panic.
	sets := [][]string{
		{"GET /users/new", "GET /users/:id"},
		{"GET /users/:id", "GET /users/new"},
		{"GET /src/:file", "GET /src/*path"},
		{"GET /src/*path", "GET /src/:file"},
		{"GET /src/", "GET /src/*path", "GET /src/:file", "GET /src/x"},
		{"GET /users/:id", "POST /users/:name"}, // different methods, different trees
		{"GET /a/:x", "GET /a/:x/b", "GET /a/:x/c/:y", "GET /a/:x/c/:y/*z"},
		{"GET /a", "GET /a/", "GET /ab", "GET /a/b"},
		{"GET /v1/items:get", "GET /v1/items:list", "GET /v1/:id"},
		{"GET /", "GET /*all"},
	}
	for _, set := range sets {
		if msg := panicMessage(func() { build(t, set...) }); msg != "" {
			t.Errorf("%q panicked: %s", set, msg)
		}
	}
}

func TestInvalidRegistrations(t *testing.T) {
	cases := []struct{ method, pattern, mention string }{
		{"GET", "", "must start with '/'"},
		{"GET", "users", "must start with '/'"},
		{"GET", "*", "must start with '/'"},
		{"GET", "/users/:", "empty wildcard name"},
		{"GET", "/users/:/x", "empty wildcard name"},
		{"GET", "/static/*", "empty wildcard name"},
		{"GET", "/static/*path/x", "catch-all *path must end"},
		{"GET", "/static/*path/", "catch-all *path must end"},
		{"GET", "/a/:id/b/:id", `duplicate parameter name "id"`},
		{"GET", "/a/:id/*id", `duplicate parameter name "id"`},
		{"GET", "/a/:id:x", "contains ':' or '*'"},
		{"GET", "/a/:id*x", "contains ':' or '*'"},
		{"", "/a", "invalid method"},
		{"GE T", "/a", "invalid method"},
		{"GET\r\n", "/a", "invalid method"},
		{"G(E)T", "/a", "invalid method"},
	}
	for _, c := range cases {
		r := New[string]()
		msg := panicMessage(func() { r.Handle(c.method, c.pattern, "x") })
		if !strings.Contains(msg, c.mention) || !strings.Contains(msg, fmt.Sprintf("%q", c.pattern)) {
			t.Errorf("Handle(%q, %q): panic %q, want it to mention %q and the pattern", c.method, c.pattern, msg, c.mention)
		}
		if len(r.Routes()) != 0 {
			t.Errorf("Handle(%q, %q) registered a route", c.method, c.pattern)
		}
	}
	// Valid tokens, including unusual ones, are accepted verbatim.
	r := New[string]()
	for _, m := range []string{"PROPFIND", "M-SEARCH", "get", "X!#$%&'*+.^_`|~9"} {
		r.Handle(m, "/a", m)
		if res := r.Lookup(m, "/a", nil); res.Status != Found || res.Handler != m {
			t.Errorf("method %q: %+v", m, res)
		}
	}
	if res := r.Lookup("GET", "/a", nil); res.Status != MethodNotAllowed {
		t.Errorf("methods are case-sensitive: GET got %v", res.Status)
	}
}
