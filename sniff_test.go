package gwist_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

// sniffCase is a handler that writes its body with Write and no
// Content-Type, the same on gwist and on net/http.
type sniffCase struct {
	path   string
	writes []string
	flush  bool // flush after the first write
}

var sniffCases = []sniffCase{
	{"/json", []string{`{"title":"milk","done":false}`}, false},
	{"/html", []string{"<!DOCTYPE html>", "<html><body>", "<p>hi</p></body></html>"}, false},
	{"/html-flushed", []string{"<html><body>", strings.Repeat("<p>x</p>", 100)}, true},
	{"/png", []string{"\x89PNG\r\n\x1a\n", strings.Repeat("\x00", 600)}, false},
	{"/big-text", []string{strings.Repeat("plain words ", 10000)}, false},
	{"/empty", nil, false},
}

func (sc sniffCase) gwist(c *gwist.Ctx) error {
	for i, w := range sc.writes {
		if _, err := c.Write([]byte(w)); err != nil {
			return err
		}
		if i == 0 && sc.flush {
			if err := c.Flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (sc sniffCase) nethttp(w http.ResponseWriter, r *http.Request) {
	for i, s := range sc.writes {
		io.WriteString(w, s)
		if i == 0 && sc.flush {
			w.(http.Flusher).Flush()
		}
	}
}

// Ctx.Write without a Content-Type sends the type net/http sends for the
// same writes: on a gwist listener, under ServeHTTP, and behind gzip
// (which then compresses what it would compress for that type).
func TestWriteSniffsLikeNetHTTP(t *testing.T) {
	mux := http.NewServeMux()
	app := gwist.New()
	zipped := gwist.New()
	zipped.Use(middleware.Gzip(middleware.GzipConfig{MinLength: 1}))
	for _, sc := range sniffCases {
		mux.HandleFunc(sc.path, sc.nethttp)
		app.GET(sc.path, sc.gwist)
		zipped.GET(sc.path, sc.gwist)
	}
	app.GET("/typed", func(c *gwist.Ctx) error {
		c.SetHeader("Content-Type", "application/json")
		_, err := c.Write([]byte("<html>"))
		return err
	})
	app.GET("/nocontent", func(c *gwist.Ctx) error {
		c.Status(204)
		_, err := c.Write(nil)
		return err
	})
	ref := httptest.NewServer(mux)
	defer ref.Close()
	under := httptest.NewServer(app)
	defer under.Close()
	servers := map[string]string{"listener": "http://" + startApp(t, app), "ServeHTTP": under.URL}
	cl := newClient(t)
	for _, sc := range sniffCases {
		want, wantBody := get(t, cl, ref.URL+sc.path)
		for name, base := range servers {
			resp, body := get(t, cl, base+sc.path)
			if got := resp.Header.Get("Content-Type"); got != want.Header.Get("Content-Type") || body != wantBody {
				t.Errorf("%s %s: Content-Type %q, net/http sends %q", name, sc.path, got, want.Header.Get("Content-Type"))
			}
		}
		req, _ := http.NewRequest("GET", "http://"+startApp(t, zipped)+sc.path, nil)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := cl.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body []byte
		if resp.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			body, _ = io.ReadAll(zr)
		} else {
			body, _ = io.ReadAll(resp.Body)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Content-Type"); got != want.Header.Get("Content-Type") || string(body) != wantBody {
			t.Errorf("gzip %s: Content-Type %q (%s), net/http sends %q", sc.path, got, resp.Header.Get("Content-Encoding"), want.Header.Get("Content-Type"))
		}
		if sc.path == "/png" && resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("gzip compressed a sniffed image/png")
		}
	}
	base := servers["listener"]
	if resp, _ := get(t, cl, base+"/typed"); resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("a handler's type was replaced: %q", resp.Header.Get("Content-Type"))
	}
	if resp, _ := get(t, cl, base+"/nocontent"); resp.StatusCode != 204 || resp.Header.Get("Content-Type") != "" {
		t.Errorf("204: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}
