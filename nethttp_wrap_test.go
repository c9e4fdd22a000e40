package gwist_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/middleware"
)

// WrapHandler through a real gwist listener: the *http.Request a net/http
// handler gets, and its ResponseWriter's net/http semantics.

func TestWrapHandlerRequest(t *testing.T) {
	app := gwist.New()
	app.POST("/users/{id}/files/*path", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("body: %v", err)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"method": r.Method, "path": r.URL.Path, "query": r.URL.Query().Get("q"), "host": r.Host,
			"uri": r.RequestURI, "proto": r.Proto, "ua": r.Header.Get("User-Agent"), "remote": r.RemoteAddr,
			"body": string(body), "len": r.ContentLength, "id": r.PathValue("id"), "rest": r.PathValue("path"),
			"pattern": r.Pattern, "tls": r.TLS != nil, "ctx": r.Context().Err() == nil,
		})
	}))
	addr := startApp(t, app)
	req, _ := http.NewRequest("POST", "http://"+addr+"/users/a%20b/files/x/y.txt?q=1", strings.NewReader("payload"))
	req.Header.Set("User-Agent", "wrap-test")
	resp, err := newClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"method": "POST", "path": "/users/a b/files/x/y.txt", "query": "1", "host": addr,
		"uri": "/users/a%20b/files/x/y.txt?q=1", "proto": "HTTP/1.1", "ua": "wrap-test",
		"body": "payload", "len": 7.0, "id": "a b", "rest": "x/y.txt",
		"pattern": "/users/{id}/files/*path", "tls": false, "ctx": true,
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if ra, _ := got["remote"].(string); !strings.HasPrefix(ra, "127.0.0.1:") {
		t.Errorf("remote %q", ra)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("sniffed Content-Type %q", ct) // JSON text sniffs as text/plain in net/http too
	}
}

func TestWrapHandlerResponseSemantics(t *testing.T) {
	app := gwist.New()
	app.GET("/sniff", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "<!DOCTYPE html>")
		_, _ = io.WriteString(w, "<p>two writes, sniffed together</p>")
	}))
	app.GET("/typed", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-typed")
		w.WriteHeader(201)
		w.Header().Set("X-Late", "ignored") // after WriteHeader: not sent
		w.WriteHeader(500)                  // a second WriteHeader: ignored
		_, _ = io.WriteString(w, "<html>")
	}))
	app.GET("/notype", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // net/http's way to send none
		_, _ = io.WriteString(w, "<html>")
	}))
	app.GET("/empty", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	app.GET("/nobody", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(204)
		if _, err := io.WriteString(w, "x"); !errors.Is(err, http.ErrBodyNotAllowed) {
			t.Errorf("write after 204: %v", err)
		}
	}))
	app.GET("/early", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(103) // interim responses are not sent
		_, _ = io.WriteString(w, "final")
	}))
	app.GET("/trailer", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Trailer", "X-Sum")
		_, _ = io.WriteString(w, "body")
		w.Header().Set("X-Sum", "42")
		w.Header().Set(http.TrailerPrefix+"X-Late", "yes")
	}))
	app.GET("/sized", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "eleven byte")
	}))
	addr := startApp(t, app)
	client := newClient(t)

	cases := []struct {
		path, ct, body string
		code           int
	}{
		{"/sniff", "text/html; charset=utf-8", "<!DOCTYPE html><p>two writes, sniffed together</p>", 200},
		{"/typed", "application/x-typed", "<html>", 201},
		{"/notype", "", "<html>", 200},
		{"/empty", "", "", 200},
		{"/nobody", "", "", 204},
		{"/early", "text/plain; charset=utf-8", "final", 200},
	}
	for _, tc := range cases {
		resp, body := get(t, client, "http://"+addr+tc.path)
		if resp.StatusCode != tc.code || resp.Header.Get("Content-Type") != tc.ct || body != tc.body {
			t.Errorf("%s: %d %q %q, want %d %q %q", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.code, tc.ct, tc.body)
		}
		if resp.Header.Get("X-Late") != "" {
			t.Errorf("%s: a header set after WriteHeader was sent", tc.path)
		}
	}
	resp, body := get(t, client, "http://"+addr+"/trailer")
	if body != "body" || resp.Trailer.Get("X-Sum") != "42" || resp.Trailer.Get("X-Late") != "yes" {
		t.Errorf("trailers: %q %v", body, resp.Trailer)
	}

	// HEAD: no body, and the Content-Length of the GET's body.
	rc := dialRaw(t, addr)
	rc.send("HEAD /sized HTTP/1.1\r\nHost: x\r\n\r\nGET /sized HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, body = rc.readResponse("HEAD")
	if resp.StatusCode != 200 || resp.ContentLength != 11 || body != "" {
		t.Fatalf("HEAD: %d Content-Length %d body %q", resp.StatusCode, resp.ContentLength, body)
	}
	if _, body = rc.readResponse("GET"); body != "eleven byte" { // nothing of a body after the HEAD's head
		t.Fatalf("GET after HEAD: %q", body)
	}
}

// streamingHandler is a net/http handler that flushes each line and writes
// the next only when the client has read the previous one (gate).
func streamingHandler(gate <-chan struct{}, n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		rc := http.NewResponseController(w)
		for i := range n {
			if _, err := io.WriteString(w, "line "+string(rune('0'+i))+"\n"); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				http.Error(w, err.Error(), 500)
				return
			}
			if gate != nil && i < n-1 {
				select {
				case <-gate:
				case <-r.Context().Done():
					return
				}
			}
		}
	}
}

func TestWrapHandlerStreams(t *testing.T) {
	gate := make(chan struct{})
	app := gwist.New()
	app.GET("/stream", gwist.WrapHandler(streamingHandler(gate, 3)))
	app.GET("/curl", gwist.WrapHandler(streamingHandler(nil, 3)))
	addr := startApp(t, app)

	resp, err := newClient(t).Get("http://" + addr + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for i := range 3 {
		line, err := br.ReadString('\n')
		if err != nil || line != "line "+string(rune('0'+i))+"\n" {
			t.Fatalf("line %d: %q %v", i, line, err)
		}
		if i < 2 {
			gate <- struct{}{}
		}
	}
	if resp.TransferEncoding == nil {
		t.Fatalf("not chunked: %v", resp.Header)
	}

	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Skip("curl not installed")
	}
	out, err := exec.Command(curl, "-sS", "-i", "--no-buffer", "http://"+addr+"/curl").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Transfer-Encoding: chunked") ||
		!strings.HasSuffix(string(out), "line 0\nline 1\nline 2\n") {
		t.Fatalf("curl: %v\n%s", err, out)
	}
}

// The request's context ends when the client leaves.
func TestWrapHandlerClientGone(t *testing.T) {
	done := make(chan error, 1)
	app := gwist.New()
	app.GET("/wait", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(200)
		http.NewResponseController(w).Flush()
		select {
		case <-r.Context().Done():
			done <- r.Context().Err()
		case <-time.After(5 * time.Second):
			done <- errors.New("the context was not cancelled")
		}
	}))
	addr := startApp(t, app)
	rc := dialRaw(t, addr)
	rc.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
	if line, err := rc.br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("head: %q %v", line, err)
	}
	rc.c.Close()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("context: %v", err)
	}
}

// A wrapped handler's body goes through the gwist middleware outside it.
func TestWrapHandlerUnderGzip(t *testing.T) {
	app := gwist.New()
	app.Use(middleware.Gzip(middleware.GzipConfig{}))
	app.GET("/big", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, strings.Repeat("compress me ", 1000))
	}))
	addr := startApp(t, app)
	req, _ := http.NewRequest("GET", "http://"+addr+"/big", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := newClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.Header.Get("Content-Encoding") != "gzip" || len(b) >= 12000 {
		t.Fatalf("not compressed: %v, %d bytes", resp.Header, len(b))
	}
}
