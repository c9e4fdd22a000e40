package gwist_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// Cookies from every Cookie header are read (a malformed pair skipped);
// SetCookie sends every attribute; DeleteCookie expires the cookie; an
// invalid cookie makes the response a 500 rather than a bad header; a Go
// client with a cookie jar round-trips them.
func TestCookies(t *testing.T) {
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/read", func(c *gwist.Ctx) error {
		var parts []string
		for _, ck := range c.Cookies() {
			parts = append(parts, ck.Name+"="+ck.Value)
		}
		b, err := c.Cookie("b")
		if err != nil {
			return err
		}
		if _, err := c.Cookie("nope"); !errors.Is(err, http.ErrNoCookie) {
			return fmt.Errorf("missing cookie: %v", err)
		}
		return c.String(200, strings.Join(parts, ",")+"|"+b.Value)
	})
	expires := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	app.GET("/set", func(c *gwist.Ctx) error {
		c.SetCookie(&http.Cookie{Name: "sid", Value: "abc", Path: "/", Domain: "example.com", Expires: expires,
			MaxAge: 3600, Secure: true, HttpOnly: true, SameSite: http.SameSiteStrictMode, Partitioned: true})
		c.SetCookie(&http.Cookie{Name: "theme", Value: "dark"})
		return c.NoContent(204)
	})
	app.GET("/delete", func(c *gwist.Ctx) error {
		c.DeleteCookie("sid", "/", "")
		return c.NoContent(204)
	})
	app.GET("/invalid", func(c *gwist.Ctx) error {
		c.SetCookie(&http.Cookie{Name: "bad name", Value: "x"})
		return c.NoContent(204)
	})
	app.GET("/jar/set", func(c *gwist.Ctx) error {
		c.SetCookie(&http.Cookie{Name: "session", Value: "s3cr3t", Path: "/jar", HttpOnly: true})
		return c.NoContent(204)
	})
	app.GET("/jar/get", func(c *gwist.Ctx) error {
		ck, err := c.Cookie("session")
		if err != nil {
			return gwist.NewHTTPError(401, "no session")
		}
		return c.String(200, ck.Value)
	})
	addr := startApp(t, app)
	base := "http://" + addr

	rc := dialRaw(t, addr)
	rc.send("GET /read HTTP/1.1\r\nHost: x\r\nCookie: a=1; b=2; bad name=3\r\nCookie: c=\"3\"\r\n\r\n")
	if resp, body := rc.readResponse("GET"); resp.StatusCode != 200 || body != "a=1,b=2,c=3|2" {
		t.Errorf("read: %d %q", resp.StatusCode, body)
	}
	c := newClient(t)
	resp, _ := get(t, c, base+"/set")
	got := resp.Header.Values("Set-Cookie")
	want := []string{
		"sid=abc; Path=/; Domain=example.com; Expires=Wed, 02 Jan 2030 03:04:05 GMT; Max-Age=3600; HttpOnly; Secure; SameSite=Strict; Partitioned",
		"theme=dark",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Set-Cookie:\n%q\nwant\n%q", got, want)
	}
	resp, _ = get(t, c, base+"/delete")
	if v := resp.Header.Get("Set-Cookie"); v != "sid=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0" {
		t.Errorf("delete: %q", v)
	}
	resp, _ = get(t, c, base+"/invalid")
	if resp.StatusCode != 500 || resp.Header.Get("Set-Cookie") != "" {
		t.Errorf("invalid cookie: %d %q", resp.StatusCode, resp.Header.Get("Set-Cookie"))
	}
	jar, _ := cookiejar.New(nil)
	c.Jar = jar
	get(t, c, base+"/jar/set")
	if resp, body := get(t, c, base+"/jar/get"); resp.StatusCode != 200 || body != "s3cr3t" {
		t.Errorf("jar round trip: %d %q", resp.StatusCode, body)
	}
}

// QueryAll returns every value of a repeated parameter, decoded, in order.
func TestQueryAll(t *testing.T) {
	app := gwist.New()
	app.GET("/q", func(c *gwist.Ctx) error {
		all := c.QueryAll("tag")
		v := c.QueryValues()
		return c.String(200, fmt.Sprintf("%q %d %q %v", all, len(all), v["x"], c.QueryAll("none") == nil))
	})
	c := newClient(t)
	_, body := get(t, c, "http://"+startApp(t, app)+"/q?tag=a&tag=b%20c&x=1&tag=&t%61g=d+e&tag")
	if want := `["a" "b c" "" "d e" ""] 5 ["1"] true`; body != want {
		t.Errorf("got %s, want %s", body, want)
	}
}

// Forms: a url-encoded body's values come before the query's; a
// multipart body's values and files are read, a file past maxMemory is
// spilled to a temporary file that is gone once the handler returns;
// malformed bodies are 400s and the wrong type a 415.
func TestForms(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var spilled []string
	var mu sync.Mutex
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.POST("/form", func(c *gwist.Ctx) error {
		f, err := c.Form()
		if err != nil {
			return err
		}
		return c.String(200, c.FormValue("a")+"|"+strings.Join(f["a"], ",")+"|"+c.FormValue("q"))
	})
	app.POST("/upload", func(c *gwist.Ctx) error {
		form, err := c.MultipartForm(1 << 10)
		if err != nil {
			return err
		}
		fh, err := c.FormFile("big")
		if err != nil {
			return err
		}
		f, err := fh.Open()
		if err != nil {
			return err
		}
		defer f.Close()
		n, _ := io.Copy(io.Discard, f)
		ents, _ := os.ReadDir(tmp)
		mu.Lock()
		for _, e := range ents {
			spilled = append(spilled, e.Name())
		}
		mu.Unlock()
		return c.String(200, fmt.Sprintf("%s %s %d %d", c.FormValue("name"), form.Value["name"][0], n, len(form.File["small"])))
	})
	base := "http://" + startApp(t, app)
	c := newClient(t)
	post := func(path, ct, body string) (int, string) {
		t.Helper()
		resp, err := c.Post(base+path, ct, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post("/form?a=fromquery&q=2", "application/x-www-form-urlencoded", "a=x+y&a=%21"); code != 200 ||
		body != "x y|x y,!,fromquery|2" {
		t.Errorf("urlencoded: %d %q", code, body)
	}
	if code, _ := post("/form", "application/x-www-form-urlencoded", "a=%zz"); code != 400 {
		t.Errorf("bad urlencoded: %d", code)
	}

	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("name", "gopher")
	w, _ := mw.CreateFormFile("small", "s.txt")
	_, _ = w.Write([]byte("tiny"))
	w, _ = mw.CreateFormFile("big", "b.bin")
	_, _ = w.Write(bytes.Repeat([]byte("x"), 2<<20))
	_ = mw.Close()
	if code, body := post("/upload", mw.FormDataContentType(), buf.String()); code != 200 || body != "gopher gopher 2097152 1" {
		t.Errorf("multipart: %d %q", code, body)
	}
	mu.Lock()
	if len(spilled) == 0 {
		t.Errorf("the 2 MiB file was not spilled to disk (maxMemory 1 KiB)")
	}
	mu.Unlock()
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("temporary files left after the handler: %v", ents)
	}
	for _, tc := range []struct {
		ct, body string
		code     int
	}{
		{"multipart/form-data", "x", 400},
		{"multipart/form-data; boundary=zz", "--zz\r\nbroken", 400},
		{"application/x-www-form-urlencoded", "a=1", 415},
	} {
		if code, _ := post("/upload", tc.ct, tc.body); code != tc.code {
			t.Errorf("%s: %d, want %d", tc.ct, code, tc.code)
		}
	}
}

// BindJSON: clear 400s for malformed, mistyped, trailing and (with the
// option) unknown-field input; 415 for a missing or wrong Content-Type
// unless BindAllowMissingContentType.
func TestBindJSON(t *testing.T) {
	type todo struct {
		Title string `json:"title"`
		Done  bool   `json:"done"`
		Tags  []string
	}
	app := gwist.New()
	app.POST("/lax", func(c *gwist.Ctx) error {
		var v todo
		if err := c.BindJSON(&v, gwist.BindAllowMissingContentType()); err != nil {
			return err
		}
		return c.JSON(200, v)
	})
	app.POST("/strict", func(c *gwist.Ctx) error {
		var v todo
		if err := c.BindJSON(&v, gwist.BindDisallowUnknownFields()); err != nil {
			return err
		}
		return c.JSON(200, v)
	})
	base := "http://" + startApp(t, app)
	c := newClient(t)
	for _, tc := range []struct {
		path, ct, body string
		code           int
		want           string
	}{
		{"/strict", "application/json", `{"title":"a","done":true}`, 200, `{"title":"a","done":true,"Tags":null}` + "\n"},
		{"/strict", "application/vnd.todo+json; charset=utf-8", `{"title":"b"}`, 200, `{"title":"b","done":false,"Tags":null}` + "\n"},
		{"/strict", "application/json", `{"title":"a","owner":"x"}`, 400, `invalid JSON body: unknown field "owner"` + "\n"},
		{"/lax", "application/json", `{"title":"a","owner":"x"}`, 200, `{"title":"a","done":false,"Tags":null}` + "\n"},
		{"/strict", "application/json", `{"title":"a",}`, 400, "invalid JSON body: invalid character '}' looking for beginning of object key string (at byte 14)\n"},
		{"/strict", "application/json", `{"done":"yes"}`, 400, `invalid JSON body: field "done": expected bool, got string` + "\n"},
		{"/strict", "application/json", `{"title":"a"} {"title":"b"}`, 400, "invalid JSON body: more data after the JSON value\n"},
		{"/strict", "application/json", ``, 400, "invalid JSON body: empty body\n"},
		{"/strict", "application/json", `{"title":`, 400, "invalid JSON body: unexpected end of input\n"},
		{"/strict", "", `{"title":"a"}`, 415, "Content-Type must be application/json\n"},
		{"/strict", "text/plain", `{"title":"a"}`, 415, "Content-Type must be application/json\n"},
		{"/lax", "", `{"title":"a"}`, 200, `{"title":"a","done":false,"Tags":null}` + "\n"},
		{"/lax", "text/plain", `{"title":"a"}`, 415, "Content-Type must be application/json\n"},
	} {
		req, _ := http.NewRequest("POST", base+tc.path, strings.NewReader(tc.body))
		if tc.ct != "" {
			req.Header.Set("Content-Type", tc.ct)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || string(b) != tc.want {
			t.Errorf("%s %q %s: %d %q, want %d %q", tc.path, tc.ct, tc.body, resp.StatusCode, b, tc.code, tc.want)
		}
	}
}

// What these accessors return stays valid after the handler returns:
// values kept from each request of one keep-alive connection (whose
// request buffers are reused) still read as sent once all are done.
func TestFormCookieQueryValuesOutliveHandler(t *testing.T) {
	forBothModes(t, func(t *testing.T, inline bool) {
		var mu sync.Mutex
		var kept [][]string
		app := gwist.New(gwist.WithInline(inline))
		app.POST("/keep", func(c *gwist.Ctx) error {
			ck, _ := c.Cookie("k")
			var v struct{ J string }
			_ = c.BindJSON(&v, gwist.BindAllowMissingContentType())
			vals := []string{ck.Value, c.Cookies()[0].Value, c.QueryAll("q")[0], c.QueryValues().Get("q"), v.J}
			mu.Lock()
			kept = append(kept, vals)
			mu.Unlock()
			return c.NoContent(204)
		})
		app.POST("/form", func(c *gwist.Ctx) error {
			mu.Lock()
			kept = append(kept, []string{c.FormValue("f"), c.FormValue("q")})
			mu.Unlock()
			return c.NoContent(204)
		})
		addr := startApp(t, app)
		rc := dialRaw(t, addr)
		const n = 20
		for i := range n {
			s := strings.Repeat(string(rune('a'+i)), 4)
			body := `{"J":"` + s + `"}`
			rc.send(fmt.Sprintf("POST /keep?q=%s HTTP/1.1\r\nHost: x\r\nCookie: k=%s\r\nContent-Length: %d\r\n\r\n%s", s, s, len(body), body))
			rc.readResponse("POST")
			form := "f=" + s
			rc.send(fmt.Sprintf("POST /form?q=%s HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n\r\n%s", s, len(form), form))
			rc.readResponse("POST")
		}
		mu.Lock()
		defer mu.Unlock()
		for i, vals := range kept {
			want := strings.Repeat(string(rune('a'+i/2)), 4)
			for j, v := range vals {
				if v != want {
					t.Errorf("request %d value %d: %q, want %q", i, j, v, want)
				}
			}
		}
	})
}
