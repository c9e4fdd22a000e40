package gwist_test

import (
	"crypto/sha256"
	"embed"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

//go:embed testdata/static
var embedded embed.FS

// openFilesUnder counts this process's descriptors open on files under
// dir (the directory itself, held by Static's os.Root, excluded).
func openFilesUnder(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd")
	}
	n := 0
	for _, e := range ents {
		target, err := os.Readlink("/proc/self/fd/" + e.Name())
		if err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			n++
		}
	}
	return n
}

// Every answer closes the file it opened: full, 304, 412, 416, ranges,
// HEAD, 404s, a client that leaves in the middle of a large file, and the
// inline App's refusal.
func TestStaticClosesFiles(t *testing.T) {
	root := staticTree(t)
	bigFile(t, root, "big.bin", 4<<20)
	base := staticApp(t, root)
	inlineBase := staticApp(t, root, gwist.WithInline(true))
	c := newClient(t)
	// No GC during the test: an *os.File's finalizer would close a leaked
	// file and hide the leak.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if n := openFilesUnder(t, root); n != 0 {
		t.Fatalf("%d files open before any request", n)
	}
	resp, _ := doReq(t, c, "GET", base+"/static/hello.txt")
	etag := resp.Header.Get("ETag")
	for _, b := range []string{base, inlineBase} {
		for _, r := range [][]string{
			{"GET", "/static/hello.txt"},
			{"GET", "/static/hello.txt", "If-None-Match", etag},
			{"GET", "/static/hello.txt", "If-Match", `"x"`},
			{"GET", "/static/big.bin", "Range", "bytes=9999999-"},
			{"GET", "/static/big.bin", "Range", "bytes=0-1,5-6"},
			{"GET", "/static/big.bin"},
			{"HEAD", "/static/big.bin"},
			{"GET", "/static/sub/"},
			{"GET", "/static/missing"},
			{"GET", "/static/escape.txt"},
		} {
			doReq(t, c, r[0], b+r[1], r[2:]...)
		}
	}
	// A client that reads 100 KB of 4 MB and hangs up.
	for range 5 {
		resp, err := c.Get(base + "/static/big.bin")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(resp.Body, make([]byte, 100<<10)); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close() // closes the connection: the body was not read to the end
	}
	c.Transport.(*http.Transport).CloseIdleConnections()
	waitFor(t, 5*time.Second, "every served file to be closed", func() bool { return openFilesUnder(t, root) == 0 })
}

// A large file streams with backpressure: the server never holds it
// whole. 256 MiB (a sparse file) go through while the heap grows by far
// less, and a client that stops reading holds the handler, not memory.
func TestStaticStreamsLargeFile(t *testing.T) {
	root := staticTree(t)
	const size = 256 << 20
	f, err := os.Create(filepath.Join(root, "huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	base := staticApp(t, root)
	c := newClient(t)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	baseline := ms.HeapAlloc
	resp, err := c.Get(base + "/static/huge.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.ContentLength != size {
		t.Fatalf("Content-Length %d", resp.ContentLength)
	}
	// Stall after 1 MiB: the server must stop, not buffer the rest.
	if _, err := io.ReadFull(resp.Body, make([]byte, 1<<20)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	var peak uint64
	sample := func() {
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapAlloc)
	}
	sample()
	buf := make([]byte, 256<<10)
	total := int64(1 << 20)
	for i := 0; ; i++ {
		n, err := resp.Body.Read(buf)
		total += int64(n)
		if i%64 == 0 {
			sample()
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if total != size {
		t.Fatalf("read %d bytes", total)
	}
	if grew := int64(peak) - int64(baseline); grew > 48<<20 {
		t.Fatalf("heap grew by %d MiB while streaming a %d MiB file", grew>>20, size>>20)
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
