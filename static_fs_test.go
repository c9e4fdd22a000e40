package gwist_test

import (
	"embed"
	"io/fs"
	"strings"
	"testing"

	"github.com/gwist/gwist"
)

//go:embed testdata/static
var embedded embed.FS

// StaticFS serves an embed.FS: content-hash ETags (no modification time,
// so no Last-Modified), 304 on revalidation, index.html.
func TestStaticFSEmbed(t *testing.T) {
	sub, err := fs.Sub(embedded, "testdata/static")
	if err != nil {
		t.Fatal(err)
	}
	app := gwist.New()
	app.StaticFS("/", embedded)
	app.StaticFS("/app", sub)
	app.GET("/one", func(c *gwist.Ctx) error { return c.FileFS(embedded, "testdata/static/app.js") })
	base := "http://" + startApp(t, app)
	c := newClient(t)
	resp, body := doReq(t, c, "GET", base+"/testdata/static/app.js")
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || !strings.Contains(body, "embedded") || !strings.HasPrefix(etag, `"`) ||
		resp.Header.Get("Last-Modified") != "" || resp.Header.Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Fatalf("%d %q %v", resp.StatusCode, body, resp.Header)
	}
	if resp, _ := doReq(t, c, "GET", base+"/testdata/static/app.js", "If-None-Match", etag); resp.StatusCode != 304 {
		t.Errorf("revalidation: %d", resp.StatusCode)
	}
	if resp, body := doReq(t, c, "GET", base+"/app/"); resp.StatusCode != 200 || !strings.Contains(body, "<title>embedded") ||
		resp.Header.Get("ETag") == "" || resp.Header.Get("ETag") == etag {
		t.Errorf("index through fs.Sub: %d %q etag %q", resp.StatusCode, body, resp.Header.Get("ETag"))
	}
	if resp, _ := doReq(t, c, "GET", base+"/one"); resp.StatusCode != 200 || resp.Header.Get("ETag") != etag {
		t.Errorf("FileFS of an embed.FS: %d etag %q, want %q", resp.StatusCode, resp.Header.Get("ETag"), etag)
	}
	if resp, body := doReq(t, c, "GET", base+"/app/app.js", "Range", "bytes=0-6"); resp.StatusCode != 206 || body != "console" {
		t.Errorf("range of an embedded file: %d %q", resp.StatusCode, body)
	}
}
