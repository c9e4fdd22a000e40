package gwist_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/gwist/gwist"
)

// go-playground/validator plugs in with one line; a value it refuses is a
// 400 naming the fields as the client sent them (JSON names here), listed
// by JSONErrorHandler.
func ExampleWithValidator() {
	validate := validator.New(validator.WithRequiredStructEnabled())
	app := gwist.New(
		gwist.WithValidator(gwist.ValidatorFunc(validate.Struct)),
		gwist.WithErrorHandler(gwist.JSONErrorHandler),
	)
	type signup struct {
		Email string `json:"email" validate:"required,email"`
		Age   int    `json:"age" validate:"gte=18"`
	}
	app.POST("/signup", func(c *gwist.Ctx) error {
		var in signup
		if err := c.BindJSON(&in); err != nil {
			return err // a 400 when in does not validate
		}
		return c.String(201, "welcome "+in.Email+"\n")
	})
	srv := httptest.NewServer(app)
	defer srv.Close()

	for _, body := range []string{`{"email":"ann@example.com","age":30}`, `{"email":"ann","age":12}`} {
		printResponse(http.Post(srv.URL+"/signup", "application/json", strings.NewReader(body)))
	}
	// Output:
	// 201 welcome ann@example.com
	// 400 {"error":"invalid request: body email: failed email; body age: failed gte=18","fields":[{"field":"email","in":"body","error":"failed email"},{"field":"age","in":"body","error":"failed gte=18"}]}
}

// Bind fills one struct from the path, the query, the headers and the
// body, by tags; the path wins over the body (see Bind).
func ExampleCtx_Bind() {
	app := gwist.New(gwist.WithErrorHandler(gwist.JSONErrorHandler))
	type update struct {
		ID     int64  `param:"id"`
		Title  string `json:"title"`
		DryRun bool   `query:"dry_run"`
		Client string `header:"User-Agent"`
	}
	app.PUT("/todos/:id", func(c *gwist.Ctx) error {
		var in update
		if err := c.Bind(&in); err != nil {
			return err
		}
		return c.String(200, fmt.Sprintf("%+v\n", in))
	})
	srv := httptest.NewServer(app)
	defer srv.Close()

	for _, target := range []string{"/todos/5?dry_run=true", "/todos/5?dry_run=maybe"} {
		req, _ := http.NewRequest("PUT", srv.URL+target, strings.NewReader(`{"id":6,"title":"water the plants"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("User-Agent", "example")
		printResponse(http.DefaultClient.Do(req))
	}
	// Output:
	// 200 {ID:5 Title:water the plants DryRun:true Client:example}
	// 400 {"error":"invalid request: query dry_run: \"maybe\" is not a boolean (true or false)","fields":[{"field":"dry_run","in":"query","error":"\"maybe\" is not a boolean (true or false)"}]}
}
