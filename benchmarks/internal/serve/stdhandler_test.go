package serve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRoutes(t *testing.T) {
	h := StdHandler()
	cases := []struct {
		method, path, ctype, body string
		status                    int
		wantType, wantBody        string
	}{
		{"GET", "/", "", "", 200, TextType, HelloBody},
		{"GET", "/json", "", "", 200, JSONType, JSONBody},
		{"POST", "/echo", "application/x-test", "ping", 200, "application/x-test", "ping"},
		{"GET", "/nope", "", "", 404, "", ""},
		{"POST", "/", "", "", 405, "", ""},
	}
	for _, c := range cases {
		req := httptest.NewRequest(c.method, c.path, strings.NewReader(c.body))
		if c.ctype != "" {
			req.Header.Set("Content-Type", c.ctype)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		res := rec.Result()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != c.status {
			t.Errorf("%s %s: status %d, want %d", c.method, c.path, res.StatusCode, c.status)
			continue
		}
		if c.status != http.StatusOK {
			continue
		}
		if got := res.Header.Get("Content-Type"); got != c.wantType {
			t.Errorf("%s %s: Content-Type %q, want %q", c.method, c.path, got, c.wantType)
		}
		if string(body) != c.wantBody {
			t.Errorf("%s %s: body %q, want %q", c.method, c.path, body, c.wantBody)
		}
	}
}

func TestStdHandlerSetsContentLength(t *testing.T) {
	rec := httptest.NewRecorder()
	StdHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/json", nil))
	if got := rec.Header().Get("Content-Length"); got != "27" {
		t.Fatalf("Content-Length %q, want 27", got)
	}
}
