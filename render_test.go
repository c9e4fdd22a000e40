package gwist_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gwist/gwist"
)

var pages = fstest.MapFS{
	"page.html":   {Data: []byte(`<!doctype html><title>{{.Title}}</title><p>{{.Body}}</p>`)},
	"broken.html": {Data: []byte(`<p>before</p>{{call .Fail}}`)},
	"late.html":   {Data: []byte(`{{range .Rows}}<p>{{.}}</p>{{end}}{{call .Fail}}`)},
}

func fail() (string, error) { return "", errors.New("the data is not there") }

// HTML renders html/template templates by name, escaping the data; a
// template failing before anything was sent is a 500 with none of its
// output; one failing after the page began to stream cuts it off.
func TestHTML(t *testing.T) {
	app := gwist.New(gwist.WithTemplates(pages, "*.html"), gwist.WithLogger(discardLogger()))
	app.GET("/page", func(c *gwist.Ctx) error {
		return c.HTML(200, "page.html", map[string]string{"Title": "Todos", "Body": "<b>milk</b> & eggs"})
	})
	app.GET("/broken", func(c *gwist.Ctx) error { return c.HTML(200, "broken.html", map[string]any{"Fail": fail}) })
	app.GET("/late", func(c *gwist.Ctx) error {
		rows := make([]string, 5000) // ~60 KiB of page before the failure
		for i := range rows {
			rows[i] = "row row row"
		}
		return c.HTML(200, "late.html", map[string]any{"Rows": rows, "Fail": fail})
	})
	base := "http://" + startApp(t, app)
	cl := newClient(t)

	resp, body := get(t, cl, base+"/page")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		body != `<!doctype html><title>Todos</title><p>&lt;b&gt;milk&lt;/b&gt; &amp; eggs</p>` {
		t.Fatalf("page: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	resp, body = get(t, cl, base+"/broken")
	if resp.StatusCode != 500 || strings.Contains(body, "before") || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("broken: %d %v %q", resp.StatusCode, resp.Header, body)
	}
	resp, err := cl.Get(base + "/late")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || err == nil || len(b) < 32<<10 {
		t.Fatalf("late: %d, %d bytes, %v: want a 200 cut off after the stream threshold", resp.StatusCode, len(b), err)
	}
}

// Without templates HTML is an error (a 500); templates that do not parse
// make Start fail.
func TestHTMLWithoutTemplates(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()))
	got := make(chan error, 1)
	app.GET("/", func(c *gwist.Ctx) error { err := c.HTML(200, "x", nil); got <- err; return err })
	resp, _ := get(t, newClient(t), "http://"+startApp(t, app)+"/")
	if err := <-got; resp.StatusCode != 500 || !errors.Is(err, gwist.ErrNoRenderer) {
		t.Fatalf("%d %v", resp.StatusCode, err)
	}
	bad := gwist.New(gwist.WithTemplates(fstest.MapFS{"x.html": {Data: []byte("{{.Broken")}}, "*.html"))
	if _, err := bad.Start("127.0.0.1:0"); !errors.Is(err, gwist.ErrInvalidOption) || !strings.Contains(err.Error(), "WithTemplates") {
		t.Fatalf("Start with a broken template: %v", err)
	}
}
