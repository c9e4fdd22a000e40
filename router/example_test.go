package router_test

import (
	"fmt"

	"github.com/gwist/gwist/router"
)

func ExampleRouter_Lookup() {
	r := router.New[string]()
	r.Handle("GET", "/users/new", "new-user form")
	r.Handle("GET", "/users/:id", "show user")
	r.Handle("GET", "/users/:id/profile", "show profile")
	r.Handle("GET", "/static/*path", "static file")

	var ps router.Params // reuse across requests: lookups then allocate nothing
	for _, path := range []string{"/users/new", "/users/42", "/users/new/profile", "/static/css/a.css"} {
		res := r.Lookup("GET", path, &ps)
		fmt.Printf("%s -> %s (%s) %v\n", path, res.Handler, res.Pattern, ps)
	}
	// Output:
	// /users/new -> new-user form (/users/new) []
	// /users/42 -> show user (/users/:id) [{id 42}]
	// /users/new/profile -> show profile (/users/:id/profile) [{id new}]
	// /static/css/a.css -> static file (/static/*path) [{path css/a.css}]
}

func ExampleRouter_Lookup_status() {
	r := router.New[int]()
	r.Handle("GET", "/items", 1)
	r.Handle("POST", "/items", 2)
	r.Handle("GET", "/docs/", 3)

	for _, q := range [][2]string{
		{"HEAD", "/items"},   // falls back to GET
		{"DELETE", "/items"}, // other methods have it
		{"OPTIONS", "/items"},
		{"GET", "/docs"}, // the caller redirects (301 for GET/HEAD, 308 otherwise)
		{"GET", "/nothing"},
	} {
		res := r.Lookup(q[0], q[1], nil)
		fmt.Printf("%s %s: %v %q\n", q[0], q[1], res.Status, res.Redirect)
	}
	// Output:
	// HEAD /items: Found ""
	// DELETE /items: MethodNotAllowed ""
	// OPTIONS /items: AutoOptions ""
	// GET /docs: RedirectTrailingSlash "/docs/"
	// GET /nothing: NotFound ""
}

func ExampleRouter_Allowed() {
	r := router.New[int]()
	r.Handle("GET", "/items/:id", 1)
	r.Handle("PUT", "/items/:id", 2)
	fmt.Printf("%q\n", r.Allowed("/items/7"))
	fmt.Printf("%q\n", r.Allowed("/nowhere"))
	// Output:
	// "GET, HEAD, OPTIONS, PUT"
	// ""
}

func ExampleRouter_Handle() {
	r := router.New[string]()
	r.Handle("GET", "/users/:id", "a")
	defer func() { fmt.Println(recover()) }()
	r.Handle("GET", "/users/:name", "b")
	// Output:
	// router: GET /users/:name conflicts with existing GET /users/:id: parameters :name and :id at the same position
}

func ExampleRouter_Routes() {
	r := router.New[int]()
	r.Handle("POST", "/a", 1)
	r.Handle("GET", "/b/:x", 2)
	fmt.Println(r.Routes())
	// Output:
	// [{POST /a} {GET /b/:x}]
}

func ExampleParams_Get() {
	r := router.New[int]()
	r.Handle("GET", "/repos/:owner/:repo", 1)
	var ps router.Params
	r.Lookup("GET", "/repos/gwist/gwist", &ps)
	fmt.Println(ps.Get("owner"), ps.Get("repo"), ps.Get("missing") == "")
	// Output:
	// gwist gwist true
}

func ExampleNew() {
	r := router.New[int]()
	r.RedirectTrailingSlash = false // report NotFound instead of suggesting a redirect
	r.Handle("GET", "/a", 1)
	fmt.Println(r.Lookup("GET", "/a/", nil).Status)
	// Output:
	// NotFound
}

func ExampleStatus_String() {
	fmt.Println(router.MethodNotAllowed)
	// Output:
	// MethodNotAllowed
}
