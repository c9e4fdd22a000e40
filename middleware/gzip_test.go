package middleware_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

func gunzip(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("gzip: %v", err)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	return string(out)
}

// bigJSON is about 100 KB of JSON.
func bigJSON() []byte {
	items := make([]map[string]any, 1000)
	for i := range items {
		items[i] = map[string]any{"id": i, "name": "item number " + strings.Repeat("x", i%40), "tags": []string{"a", "b"}}
	}
	b, _ := json.Marshal(items)
	return b
}

// TestGzip checks which answers are compressed and that compressed ones
// decode to the body.
func TestGzip(t *testing.T) {
	big := bigJSON()
	app := gwist.New()
	app.Use(middleware.Gzip(middleware.GzipConfig{}))
	app.GET("/json", func(c *gwist.Ctx) error { return c.Bytes(200, "application/json", big) })
	app.GET("/small", func(c *gwist.Ctx) error { return c.String(200, "tiny") })
	app.GET("/png", func(c *gwist.Ctx) error { return c.Bytes(200, "image/png", big) })
	app.GET("/encoded", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Encoding", "br")
		return c.Bytes(200, "application/json", big)
	})
	app.GET("/nocontent", func(c *gwist.Ctx) error { return c.NoContent(204) })
	app.GET("/error", func(c *gwist.Ctx) error { return gwist.NewHTTPError(400, strings.Repeat("bad ", 400)) })
	url := startApp(t, app)
	client := newClient(t)
	gz := map[string]string{"Accept-Encoding": "gzip, deflate, br"}

	resp, body := do(t, client, "GET", url+"/json", gz, "")
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" ||
		len(body) >= len(big)/3 || gunzip(t, body) != string(big) || resp.ContentLength != int64(len(body)) {
		t.Fatalf("json: %v, %d bytes for %d", resp.Header, len(body), len(big))
	}
	if resp, body = do(t, client, "GET", url+"/error", gz, ""); resp.StatusCode != 400 ||
		resp.Header.Get("Content-Encoding") != "gzip" || gunzip(t, body) != strings.Repeat("bad ", 400)+"\n" {
		t.Fatalf("error answer: %d %v", resp.StatusCode, resp.Header)
	}
	for _, tc := range []struct {
		method, path string
		hdr          map[string]string
	}{
		{"GET", "/json", nil},
		{"GET", "/json", map[string]string{"Accept-Encoding": "gzip;q=0, br"}},
		{"GET", "/json", map[string]string{"Accept-Encoding": "identity"}},
		{"HEAD", "/json", gz},
		{"GET", "/small", gz},
		{"GET", "/png", gz},
		{"GET", "/encoded", gz},
		{"GET", "/nocontent", gz},
	} {
		resp, body := do(t, client, tc.method, url+tc.path, tc.hdr, "")
		if ce := resp.Header.Get("Content-Encoding"); ce == "gzip" {
			t.Errorf("%s %s %v: compressed", tc.method, tc.path, tc.hdr)
		}
		if tc.method == "GET" && tc.path == "/json" && string(body) != string(big) {
			t.Errorf("%s %v: body changed", tc.path, tc.hdr)
		}
		if tc.method == "HEAD" && resp.ContentLength != int64(len(big)) {
			t.Errorf("HEAD: Content-Length %d, want %d", resp.ContentLength, len(big))
		}
	}
}

// TestGzipStreams checks that a handler's Flush pushes compressed bytes to
// the client while the handler still runs, and that a long streamed body
// arrives whole.
func TestGzipStreams(t *testing.T) {
	release := make(chan struct{})
	app := gwist.New()
	app.Use(middleware.Gzip(middleware.GzipConfig{}))
	app.GET("/stream", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Type", "text/plain")
		if _, err := c.Write([]byte("first line\n")); err != nil {
			return err
		}
		if err := c.Flush(); err != nil {
			return err
		}
		select {
		case <-release:
		case <-time.After(5 * time.Second):
			return nil // the client never saw the first line
		}
		for i := 0; i < 2000; i++ {
			if _, err := c.Write([]byte(strings.Repeat("row ", 50) + "\n")); err != nil {
				return err
			}
		}
		return nil
	})
	url := startApp(t, app)
	req, _ := http.NewRequest("GET", url+"/stream", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := newClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" || resp.ContentLength != -1 {
		t.Fatalf("head: %v", resp.Header)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(zr)
	line, err := br.ReadString('\n')
	if err != nil || line != "first line\n" {
		t.Fatalf("first line before the handler goes on: %q %v", line, err)
	}
	close(release)
	rest, err := io.ReadAll(br)
	if err != nil || len(rest) != 2000*201 {
		t.Fatalf("rest: %d bytes, %v", len(rest), err)
	}
}

// TestGzipOutsideRecover: a panic after the handler wrote a compressible
// body, with Recover inside Gzip, answers a clean 500 (the compressor's
// state is reset with the response).
func TestGzipOutsideRecover(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.Use(middleware.Gzip(middleware.GzipConfig{MinLength: 16}), middleware.Recover())
	app.GET("/", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Type", "application/json")
		_, _ = c.Write([]byte(strings.Repeat(`{"a":1},`, 100)))
		panic("late")
	})
	url := startApp(t, app)
	resp, body := do(t, newClient(t), "GET", url+"/", map[string]string{"Accept-Encoding": "gzip"}, "")
	got := string(body)
	if resp.Header.Get("Content-Encoding") == "gzip" {
		got = gunzip(t, body)
	}
	if resp.StatusCode != 500 || got != "Internal Server Error\n" {
		t.Fatalf("%d %v %q", resp.StatusCode, resp.Header, got)
	}
}

// TestGzipStaticFiles: files served by StaticFS go through Gzip too, both
// the small ones (read into the response) and the large (streamed) ones.
func TestGzipStaticFiles(t *testing.T) {
	small := strings.Repeat("small file line\n", 200)   // 3.2 KB
	large := strings.Repeat("large file line\n", 40000) // 640 KB: streamed
	app := gwist.New()
	app.Use(middleware.Gzip(middleware.GzipConfig{}))
	app.StaticFS("/s", fstest.MapFS{"small.txt": {Data: []byte(small)}, "large.txt": {Data: []byte(large)}})
	// From disk, where a large file would otherwise leave through sendfile.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "large.txt"), []byte(large), 0o644); err != nil {
		t.Fatal(err)
	}
	app.Static("/d", dir)
	url := startApp(t, app)
	client := newClient(t)
	for name, want := range map[string]string{"s/small.txt": small, "s/large.txt": large, "d/large.txt": large} {
		resp, body := do(t, client, "GET", url+"/"+name, map[string]string{"Accept-Encoding": "gzip"}, "")
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || gunzip(t, body) != want {
			t.Fatalf("%s: %d %v (%d bytes)", name, resp.StatusCode, resp.Header, len(body))
		}
	}
}
