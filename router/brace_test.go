package router

import (
	"strings"
	"testing"
)

// TestServeMuxWildcards checks that the net/http ServeMux forms are
// aliases: "{id}" matches like ":id", "{rest...}" like "*rest", and a final
// "{$}" means the path ends there; Result.Pattern is the pattern as written.
func TestServeMuxWildcards(t *testing.T) {
	r := build(t,
		"GET /todos/{id}",
		"GET /todos/{id}/tags/{tag}",
		"GET /files/{path...}",
		"GET /exact/{$}",
		"GET /{$}",
	)
	for _, c := range []struct {
		path, pattern, params string
		status                Status
	}{
		{"/todos/42", "/todos/{id}", "id=42", Found},
		{"/todos/42/tags/go", "/todos/{id}/tags/{tag}", "id=42;tag=go", Found},
		{"/files/a/b.txt", "/files/{path...}", "path=a/b.txt", Found},
		{"/files/", "/files/{path...}", "path=", Found},
		{"/exact/", "/exact/{$}", "", Found},
		{"/exact/more", "", "", NotFound},
		{"/", "/{$}", "", Found},
		{"/todos/%7Bid%7D", "/todos/{id}", "id=%7Bid%7D", Found},
	} {
		var ps Params
		res := r.Lookup("GET", c.path, &ps)
		if res.Status != c.status || res.Pattern != c.pattern || paramString(ps) != c.params {
			t.Errorf("%s: got %v %q %q, want %v %q %q", c.path, res.Status, res.Pattern, paramString(ps),
				c.status, c.pattern, c.params)
		}
	}
	// "/todos/{id}" and "/todos/:id" are the same route: registering both
	// is a conflict, and different names at one position conflict too.
	if msg := panicMessage(func() { r.Handle("GET", "/todos/:id", "x") }); !strings.Contains(msg, "conflicts") {
		t.Errorf("alias registered twice: %q", msg)
	}
	if msg := panicMessage(func() { r.Handle("GET", "/todos/{name}", "x") }); !strings.Contains(msg, ":name and :id") {
		t.Errorf("different names: %q", msg)
	}
}

// TestBraceMisusePanics checks that every brace that is not a whole-segment
// ServeMux wildcard panics at registration with a message naming the
// syntax, instead of registering a literal that silently 404s.
func TestBraceMisusePanics(t *testing.T) {
	for _, p := range []string{
		"/todos/{id",
		"/todos/id}",
		"/todos/x{id}",
		"/todos/{id}x",
		"/todos/{id}.json",
		"/todos/{}",
		"/todos/{...}",
		"/files/{path...}/x",
		"/exact/{$}/x",
		"/a/{b}c}",
		"/a/{b{c}",
		"/a/{b:c}",
		"/a/:b}",
		"/{id}/{id}",
	} {
		msg := panicMessage(func() { New[string]().Handle("GET", p, "x") })
		if msg == "" {
			t.Errorf("%q registered without a panic", p)
			continue
		}
		if !strings.Contains(msg, p) {
			t.Errorf("%q: message %q does not quote the pattern", p, msg)
		}
	}
	msg := panicMessage(func() { New[string]().Handle("GET", "/todos/x{id}", "x") })
	for _, want := range []string{"{name}", ":name", "{name...}", "*name"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not name %s", msg, want)
		}
	}
}

// FuzzPattern registers arbitrary patterns: Handle either panics with a
// "router:" message or registers a route that a concrete path then finds.
func FuzzPattern(f *testing.F) {
	for _, s := range []string{"/a/{b}", "/a/{b...}", "/{$}", "/a/:b/*c", "/x{y}", "/{a}/{a}", "/{", "/}", "/{$}/"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		r := New[int]()
		msg := panicMessage(func() { r.Handle("GET", pattern, 1) })
		if msg != "" {
			if !strings.HasPrefix(msg, "router: ") {
				t.Fatalf("%q: unexpected panic %q", pattern, msg)
			}
			return
		}
		pieces, err := parsePattern(pattern)
		if err != nil {
			t.Fatalf("%q registered but parsePattern says %v", pattern, err)
		}
		var path strings.Builder
		for _, p := range pieces {
			switch p.kind {
			case pieceStatic:
				if strings.ContainsAny(p.text, "{}") {
					t.Fatalf("%q: brace left in static text %q", pattern, p.text)
				}
				path.WriteString(p.text)
			case pieceParam:
				path.WriteString("v")
			case pieceCatchAll:
				path.WriteString("c/d")
			}
		}
		if res := r.Lookup("GET", path.String(), nil); res.Status != Found || res.Pattern != pattern {
			t.Fatalf("%q: lookup of %q gave %v %q", pattern, path.String(), res.Status, res.Pattern)
		}
	})
}
