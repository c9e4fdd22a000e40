package gwist_test

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwist/gwist"
)

// Ctx.File and Ctx.FileFS serve one file from a handler.
func TestCtxFile(t *testing.T) {
	root := staticTree(t)
	data := bigFile(t, root, "big.bin", 1<<20)
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/report", func(c *gwist.Ctx) error { return c.File(filepath.Join(root, "big.bin")) })
	app.GET("/dir", func(c *gwist.Ctx) error { return c.File(root) })
	app.GET("/typed", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Type", "application/x-custom")
		return c.File(filepath.Join(root, "hello.txt"))
	})
	app.GET("/fs/*name", func(c *gwist.Ctx) error { return c.FileFS(os.DirFS(root), c.Param("name")) })
	base := "http://" + startApp(t, app)
	c := newClient(t)
	resp, body := doReq(t, c, "GET", base+"/report")
	if resp.StatusCode != 200 || sha256.Sum256([]byte(body)) != sha256.Sum256(data) || resp.ContentLength != 1<<20 ||
		resp.Header.Get("ETag") == "" {
		t.Errorf("File: %d len %d", resp.StatusCode, len(body))
	}
	if resp, _ := doReq(t, c, "GET", base+"/report", "Range", "bytes=-10"); resp.StatusCode != 206 {
		t.Errorf("File range: %d", resp.StatusCode)
	}
	if resp, _ := doReq(t, c, "GET", base+"/dir"); resp.StatusCode != 404 {
		t.Errorf("File of a directory: %d", resp.StatusCode)
	}
	if resp, _ := doReq(t, c, "GET", base+"/typed"); resp.Header.Get("Content-Type") != "application/x-custom" {
		t.Errorf("handler's Content-Type: %q", resp.Header.Get("Content-Type"))
	}
	if resp, body := doReq(t, c, "GET", base+"/fs/sub/index.html"); resp.StatusCode != 200 || body != "<h1>sub index</h1>" {
		t.Errorf("FileFS: %d %q", resp.StatusCode, body)
	}
	for _, p := range []string{"/fs/../secret.txt", "/fs/%2e%2e/secret.txt", "/fs//etc/passwd"} {
		rc := dialRaw(t, strings.TrimPrefix(base, "http://"))
		rc.send("GET " + p + " HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp, body := rc.readResponse("GET"); resp.StatusCode != 400 || strings.Contains(body, "SECRET") {
			t.Errorf("FileFS %s: %d %q", p, resp.StatusCode, body)
		}
	}
}
