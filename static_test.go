package gwist_test

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

const (
	helloText  = "hello, static world\n"
	secretText = "TOP SECRET: outside the root\n"
)

// staticTree makes a directory to serve and, beside it, a secret file that
// must never be reachable. It returns the served directory.
//
//	root/hello.txt, root/style.css, root/noext (HTML, sniffed)
//	root/sub/index.html, root/empty/ (no index), root/.env, root/.git/config
//	root/escape.txt -> ../secret.txt (symlink out of the root)
//	root/inside.txt -> hello.txt (symlink inside the root)
//	root/fifo (a named pipe)
//	secret.txt
func staticTree(t *testing.T) string {
	t.Helper()
	base := t.TempDir()
	root := filepath.Join(base, "root")
	write := func(name, content string) {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("secret.txt", secretText)
	write("root/hello.txt", helloText)
	write("root/style.css", "body{}")
	write("root/noext", "<!DOCTYPE html><html><body>sniff me</body></html>")
	write("root/sub/index.html", "<h1>sub index</h1>")
	write("root/.env", "PASSWORD="+secretText)
	write("root/.git/config", secretText)
	if err := os.Mkdir(filepath.Join(root, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secret.txt", filepath.Join(root, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(root, "escape-abs.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..", filepath.Join(root, "up")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("hello.txt", filepath.Join(root, "inside.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// bigFile writes n bytes of a repeating, position-dependent pattern.
func bigFile(t *testing.T, dir, name string, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

// staticBoth serves root at /static with HTTP/2 on, on a plaintext
// listener and on a TLS one, and returns their addresses.
func staticBoth(t *testing.T, root string) (plain, tlsAddr string) {
	t.Helper()
	newApp := func() *gwist.App {
		app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
		app.Static("/static", root)
		return app
	}
	return startApp(t, newApp()), startTLS(t, newApp(), serverTLSConfig(t))
}

func staticApp(t *testing.T, root string, opts ...gwist.Option) string {
	t.Helper()
	app := gwist.New(append([]gwist.Option{gwist.WithLogger(discardLogger())}, opts...)...)
	app.Static("/static", root)
	return "http://" + startApp(t, app)
}

func doReq(t *testing.T, c *http.Client, method, url string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", url, err)
	}
	return resp, string(b)
}

var strongETag = regexp.MustCompile(`^"[0-9a-f]+-[0-9a-f]+"$`)

// A file comes with its type, length, strong ETag, Last-Modified and
// Accept-Ranges; types come from the extension or, without one, sniffing.
func TestStaticServesFile(t *testing.T) {
	root := staticTree(t)
	base := staticApp(t, root)
	c := newClient(t)
	resp, body := doReq(t, c, "GET", base+"/static/hello.txt")
	info, _ := os.Stat(filepath.Join(root, "hello.txt"))
	if resp.StatusCode != 200 || body != helloText {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	h := resp.Header
	if h.Get("Content-Type") != "text/plain; charset=utf-8" || resp.ContentLength != int64(len(helloText)) ||
		!strongETag.MatchString(h.Get("ETag")) || h.Get("Accept-Ranges") != "bytes" ||
		h.Get("Last-Modified") != info.ModTime().UTC().Format(http.TimeFormat) {
		t.Fatalf("headers %v length %d", h, resp.ContentLength)
	}
	for path, ctype := range map[string]string{
		"/static/style.css":  "text/css; charset=utf-8",
		"/static/noext":      "text/html; charset=utf-8",
		"/static/inside.txt": "text/plain; charset=utf-8",
	} {
		if resp, _ := doReq(t, c, "GET", base+path); resp.StatusCode != 200 || resp.Header.Get("Content-Type") != ctype {
			t.Errorf("%s: %d %q, want %q", path, resp.StatusCode, resp.Header.Get("Content-Type"), ctype)
		}
	}
}

// Conditional requests: a matching If-None-Match or an If-Modified-Since
// not older than the file gives 304 without a body; If-Match that does not
// match gives 412; a changed file gets a new ETag.
func TestStaticConditional(t *testing.T) {
	root := staticTree(t)
	base := staticApp(t, root)
	c := newClient(t)
	resp, _ := doReq(t, c, "GET", base+"/static/hello.txt")
	etag, lastMod := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	for _, hdr := range [][]string{
		{"If-None-Match", etag},
		{"If-None-Match", `"other", ` + etag},
		{"If-None-Match", "*"},
		{"If-Modified-Since", lastMod},
	} {
		resp, body := doReq(t, c, "GET", base+"/static/hello.txt", hdr...)
		if resp.StatusCode != 304 || body != "" || resp.Header.Get("ETag") != etag {
			t.Errorf("%v: %d %q etag %q", hdr, resp.StatusCode, body, resp.Header.Get("ETag"))
		}
	}
	for _, hdr := range [][]string{
		{"If-None-Match", `"other"`},
		{"If-Modified-Since", time.Now().Add(-48 * time.Hour).UTC().Format(http.TimeFormat)},
	} {
		if resp, body := doReq(t, c, "GET", base+"/static/hello.txt", hdr...); resp.StatusCode != 200 || body != helloText {
			t.Errorf("%v: %d %q", hdr, resp.StatusCode, body)
		}
	}
	if resp, _ := doReq(t, c, "GET", base+"/static/hello.txt", "If-Match", `"other"`); resp.StatusCode != 412 {
		t.Errorf("If-Match mismatch: %d", resp.StatusCode)
	}
	if resp, _ := doReq(t, c, "HEAD", base+"/static/hello.txt", "If-None-Match", etag); resp.StatusCode != 304 {
		t.Errorf("HEAD If-None-Match: %d", resp.StatusCode)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "hello.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	resp, body := doReq(t, c, "GET", base+"/static/hello.txt", "If-None-Match", etag)
	if resp.StatusCode != 200 || body != helloText || resp.Header.Get("ETag") == etag {
		t.Errorf("after touching the file: %d etag %q (was %q)", resp.StatusCode, resp.Header.Get("ETag"), etag)
	}
}

// Ranges: one range is a 206 with Content-Range; several are a
// multipart/byteranges 206 that mime/multipart reads back; a range past
// the end is a 416 with "Content-Range: bytes */size"; If-Range with the
// current ETag keeps the range and with another sends the whole file.
func TestStaticRanges(t *testing.T) {
	root := staticTree(t)
	data := bigFile(t, root, "big.bin", 200_000)
	base := staticApp(t, root)
	c := newClient(t)
	url := base + "/static/big.bin"
	resp, body := doReq(t, c, "GET", url, "Range", "bytes=10-19")
	if resp.StatusCode != 206 || body != string(data[10:20]) || resp.Header.Get("Content-Range") != "bytes 10-19/200000" ||
		resp.ContentLength != 10 {
		t.Fatalf("single range: %d %q %v", resp.StatusCode, resp.Header.Get("Content-Range"), resp.ContentLength)
	}
	resp, body = doReq(t, c, "GET", url, "Range", "bytes=-100000")
	if resp.StatusCode != 206 || body != string(data[100000:]) {
		t.Fatalf("suffix range: %d len %d", resp.StatusCode, len(body))
	}
	resp, body = doReq(t, c, "GET", url, "Range", "bytes=0-4,100-104,199990-")
	mt, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode != 206 || mt != "multipart/byteranges" || resp.ContentLength != int64(len(body)) {
		t.Fatalf("multi range: %d %q length %d body %d", resp.StatusCode, resp.Header.Get("Content-Type"), resp.ContentLength, len(body))
	}
	mr := multipart.NewReader(strings.NewReader(body), params["boundary"])
	want := []struct {
		cr   string
		data []byte
	}{{"bytes 0-4/200000", data[0:5]}, {"bytes 100-104/200000", data[100:105]}, {"bytes 199990-199999/200000", data[199990:]}}
	for i, w := range want {
		p, err := mr.NextPart()
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		got, _ := io.ReadAll(p)
		if p.Header.Get("Content-Range") != w.cr || !bytes.Equal(got, w.data) || p.Header.Get("Content-Type") != "application/octet-stream" {
			t.Fatalf("part %d: %v %q", i, p.Header, got)
		}
	}
	if _, err := mr.NextPart(); err != io.EOF {
		t.Fatalf("after the parts: %v", err)
	}
	for _, r := range []string{"bytes=200000-", "bytes=5-1", "bytes=x"} {
		resp, _ := doReq(t, c, "GET", url, "Range", r)
		if resp.StatusCode != 416 || resp.Header.Get("Content-Range") != "bytes */200000" {
			t.Errorf("%s: %d %q", r, resp.StatusCode, resp.Header.Get("Content-Range"))
		}
	}
	etag := resp.Header.Get("ETag")
	if resp, body := doReq(t, c, "GET", url, "Range", "bytes=0-0", "If-Range", etag); resp.StatusCode != 206 || body != string(data[:1]) {
		t.Errorf("If-Range current: %d", resp.StatusCode)
	}
	if resp, body := doReq(t, c, "GET", url, "Range", "bytes=0-0", "If-Range", `"stale"`); resp.StatusCode != 200 || body != string(data) {
		t.Errorf("If-Range stale: %d len %d", resp.StatusCode, len(body))
	}
}

// HEAD gets the GET's Content-Length and no body, small or streamed: a
// second request on the same connection is read right after the head.
func TestStaticHead(t *testing.T) {
	root := staticTree(t)
	bigFile(t, root, "big.bin", 3<<20)
	addr := strings.TrimPrefix(staticApp(t, root), "http://")
	rc := dialRaw(t, addr)
	for _, c := range []struct{ path, length string }{
		{"/static/hello.txt", fmt.Sprint(len(helloText))},
		{"/static/big.bin", fmt.Sprint(3 << 20)},
	} {
		rc.send("HEAD " + c.path + " HTTP/1.1\r\nHost: x\r\n\r\nGET /static/style.css HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, body := rc.readResponse("HEAD")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Length") != c.length || body != "" {
			t.Fatalf("HEAD %s: %d length %q", c.path, resp.StatusCode, resp.Header.Get("Content-Length"))
		}
		if resp, body := rc.readResponse("GET"); resp.StatusCode != 200 || body != "body{}" {
			t.Fatalf("GET after HEAD %s: %d %q", c.path, resp.StatusCode, body)
		}
	}
}

// Directories: without the trailing slash a 301 adds it (query kept);
// with it the index.html is served; a directory without one, or a file
// asked for as a directory, is a 404 (there are no listings).
func TestStaticDirectories(t *testing.T) {
	root := staticTree(t)
	if err := os.WriteFile(filepath.Join(root, "index.html"), []byte("<p>root</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := staticApp(t, root)
	c := newClient(t)
	resp, _ := doReq(t, c, "GET", base+"/static/sub?x=1")
	if resp.StatusCode != 301 || resp.Header.Get("Location") != "/static/sub/?x=1" {
		t.Fatalf("redirect: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for path, want := range map[string]string{"/static/sub/": "<h1>sub index</h1>", "/static/": "<p>root</p>"} {
		resp, body := doReq(t, c, "GET", base+path)
		if resp.StatusCode != 200 || body != want || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Errorf("%s: %d %q %q", path, resp.StatusCode, body, resp.Header.Get("Content-Type"))
		}
	}
	if resp, _ := doReq(t, c, "GET", base+"/static"); resp.StatusCode != 301 || resp.Header.Get("Location") != "/static/" {
		t.Errorf("/static: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, path := range []string{"/static/empty/", "/static/hello.txt/", "/static/missing.txt", "/static/sub/missing/"} {
		if resp, _ := doReq(t, c, "GET", base+path); resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", path, resp.StatusCode)
		}
	}
}

// Every way out of the root is refused, each through a raw socket so that
// no client cleans the path first. The secret never appears, and each
// defence answers with its own status: 400 (and a closed connection) for
// malformed paths, 404 for dotfiles, links out of the root and pipes.
func TestStaticNoWayOut(t *testing.T) {
	root := staticTree(t)
	addr := strings.TrimPrefix(staticApp(t, root), "http://")
	for _, c := range []struct {
		name, target string
		status       int
	}{
		{"dotdot", "/static/../secret.txt", 400},
		{"dotdot deeper", "/static/sub/../../secret.txt", 400},
		{"encoded dots", "/static/%2e%2e/secret.txt", 400},
		{"encoded dots upper", "/static/%2E%2E/secret.txt", 400},
		{"dot element", "/static/./hello.txt", 400},
		{"encoded slash", "/static/sub%2f..%2f..%2fsecret.txt", 400},
		{"encoded slash upper", "/static/..%2Fsecret.txt", 400},
		{"encoded slash to a served file", "/static/sub%2Findex.html", 400},
		{"encoded backslash", "/static/..%5csecret.txt", 400},
		{"backslash", "/static/..\\secret.txt", 400},
		{"encoded NUL", "/static/hello.txt%00.png", 400},
		{"double slash absolute", "/static//etc/passwd", 400},
		{"encoded absolute", "/static/%2Fetc%2Fpasswd", 400},
		{"bad escape", "/static/%zz", 400},
		{"dotfile", "/static/.env", 404},
		{"dot directory", "/static/.git/config", 404},
		{"encoded dotfile", "/static/%2eenv", 404},
		{"symlink out", "/static/escape.txt", 404},
		{"absolute symlink out", "/static/escape-abs.txt", 404},
		{"symlink to parent", "/static/up/secret.txt", 404},
		{"fifo", "/static/fifo", 404},
	} {
		t.Run(c.name, func(t *testing.T) {
			rc := dialRaw(t, addr)
			rc.send("GET " + c.target + " HTTP/1.1\r\nHost: x\r\n\r\n")
			resp, body := rc.readResponse("GET")
			if strings.Contains(body, "SECRET") {
				t.Fatalf("%s leaked the secret: %q", c.target, body)
			}
			if resp.StatusCode != c.status {
				t.Fatalf("%s: status %d, want %d (%q)", c.target, resp.StatusCode, c.status, body)
			}
			if c.status == 400 {
				rc.expectClosed()
			}
		})
	}
}

// Dotfiles are served when StaticDotfiles(true) is set; a link out of the
// root is still refused.
func TestStaticDotfilesAllowed(t *testing.T) {
	root := staticTree(t)
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.Static("/s", root, gwist.StaticDotfiles(true), gwist.StaticIndex(""))
	base := "http://" + startApp(t, app)
	c := newClient(t)
	if resp, body := doReq(t, c, "GET", base+"/s/.git/config"); resp.StatusCode != 200 || body != secretText {
		t.Errorf(".git/config: %d", resp.StatusCode)
	}
	if resp, _ := doReq(t, c, "GET", base+"/s/sub/"); resp.StatusCode != 404 {
		t.Errorf("no index: %d", resp.StatusCode)
	}
	if resp, _ := doReq(t, c, "GET", base+"/s/escape.txt"); resp.StatusCode != 404 {
		t.Errorf("escape: %d", resp.StatusCode)
	}
}

// On an inline App (no streaming), files up to WithMaxInlineFileBytes are
// sent buffered, ranges of larger ones too; a larger body is a 500.
func TestStaticInline(t *testing.T) {
	root := staticTree(t)
	data := bigFile(t, root, "big.bin", 2<<20)
	base := staticApp(t, root, gwist.WithInline(true))
	c := newClient(t)
	if resp, body := doReq(t, c, "GET", base+"/static/hello.txt"); resp.StatusCode != 200 || body != helloText {
		t.Errorf("small: %d %q", resp.StatusCode, body)
	}
	if resp, body := doReq(t, c, "HEAD", base+"/static/hello.txt"); resp.StatusCode != 200 || body != "" ||
		resp.ContentLength != int64(len(helloText)) {
		t.Errorf("HEAD small: %d %d", resp.StatusCode, resp.ContentLength)
	}
	if resp, body := doReq(t, c, "GET", base+"/static/big.bin", "Range", "bytes=1000-1999"); resp.StatusCode != 206 ||
		body != string(data[1000:2000]) {
		t.Errorf("range of a large file: %d", resp.StatusCode)
	}
	for _, m := range []string{"GET", "HEAD"} {
		resp, _ := doReq(t, c, m, base+"/static/big.bin")
		if resp.StatusCode != 500 || resp.Header.Get("ETag") != "" {
			t.Errorf("%s large file inline: %d %v", m, resp.StatusCode, resp.Header)
		}
	}
	small := staticApp(t, root, gwist.WithInline(true), gwist.WithMaxInlineFileBytes(4))
	if resp, _ := doReq(t, c, "GET", small+"/static/hello.txt"); resp.StatusCode != 500 {
		t.Errorf("over a 4-byte limit: %d", resp.StatusCode)
	}
	big := staticApp(t, root, gwist.WithInline(true), gwist.WithMaxInlineFileBytes(4<<20))
	if resp, body := doReq(t, c, "GET", big+"/static/big.bin"); resp.StatusCode != 200 || body != string(data) {
		t.Errorf("under a 4 MiB limit: %d", resp.StatusCode)
	}
}
