package gwist_test

import (
	"net/http"
	"net/http/httptest"
	"testing/fstest"

	"github.com/gwist/gwist"
)

// Render an html/template page by name; the data is escaped for HTML.
func ExampleCtx_HTML() {
	templates := fstest.MapFS{ // an embed.FS in a real program
		"hello.html": {Data: []byte(`<p>Hello, {{.}}!</p>`)},
	}
	app := gwist.New(gwist.WithTemplates(templates, "*.html"))
	app.GET("/hello/:name", func(c *gwist.Ctx) error {
		return c.HTML(http.StatusOK, "hello.html", c.Param("name"))
	})
	srv := httptest.NewServer(app)
	defer srv.Close()

	printResponse(http.Get(srv.URL + "/hello/%3Cb%3EAnn%3C%2Fb%3E"))
	// Output: 200 <p>Hello, &lt;b&gt;Ann&lt;/b&gt;!</p>
}
