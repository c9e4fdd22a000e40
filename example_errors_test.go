package gwist_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gwist/gwist"
)

// One option makes every error JSON: the handlers' and gwist's own
// answers (the router's 404 and 405, a refused body) alike.
func ExampleJSONErrorHandler() {
	app := gwist.New(gwist.WithErrorHandler(gwist.JSONErrorHandler))
	app.GET("/todos/:id", func(c *gwist.Ctx) error {
		return gwist.NewHTTPError(http.StatusNotFound, "no such todo")
	})
	srv := httptest.NewServer(app)
	defer srv.Close()

	printResponse(http.Get(srv.URL + "/todos/7"))         // the handler's error
	printResponse(http.Get(srv.URL + "/nope"))            // the router's 404
	printResponse(http.Post(srv.URL+"/todos/7", "", nil)) // the router's 405
	// Output:
	// 404 {"error":"no such todo"}
	// 404 {"error":"Not Found"}
	// 405 {"error":"Method Not Allowed"}
}

// An option given a value it cannot take makes Start fail, naming it.
func ExampleErrInvalidOption() {
	app := gwist.New(gwist.WithWorkers(-5), gwist.WithIdleTimeout(0))
	_, err := app.Start("127.0.0.1:0")
	for _, line := range strings.Split(err.Error(), "\n") {
		fmt.Println(line)
	}
	// Output:
	// gwist: invalid option WithWorkers(-5): must not be negative (0 means the default, 1024)
	// gwist: invalid option WithIdleTimeout(0s): must be positive (the default is 60s; there is no "no timeout")
}
