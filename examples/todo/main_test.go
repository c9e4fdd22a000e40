package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/testkit"
)

func TestMain(m *testing.M) {
	if os.Getenv("TODO_RUN_MAIN") == "1" { // TestGracefulShutdown's child
		os.Args = []string{"todo", "-addr", "127.0.0.1:0"}
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func quietLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// testServer serves the App through net/http/httptest: the App is an
// http.Handler.
func testServer(t *testing.T) *httptest.Server {
	app, _ := newApp(quietLogger(), "http://localhost:3000")
	srv := httptest.NewServer(app)
	t.Cleanup(srv.Close)
	return srv
}

// call sends a request and decodes a JSON answer into out (when not nil).
func call(t *testing.T, method, url, contentType, body string, out any) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %d %q: %v", method, url, resp.StatusCode, b, err)
		}
	}
	return resp
}

const jsonType = "application/json"

func TestCRUD(t *testing.T) {
	base := testServer(t).URL + "/api/todos"
	var created Todo
	resp := call(t, "POST", base, jsonType, `{"title":"  write the tests  "}`, &created)
	if resp.StatusCode != 201 || created.ID != 1 || created.Title != "write the tests" || created.Done ||
		resp.Header.Get("Location") != "/api/todos/1" || resp.Header.Get("X-Request-ID") == "" {
		t.Fatalf("create: %d %+v %v", resp.StatusCode, created, resp.Header)
	}
	call(t, "POST", base, jsonType, `{"title":"second"}`, nil)

	var list []Todo
	if resp := call(t, "GET", base, "", "", &list); resp.StatusCode != 200 || len(list) != 2 || list[1].Title != "second" {
		t.Fatalf("list: %d %+v", resp.StatusCode, list)
	}
	var got Todo
	if resp := call(t, "GET", base+"/1", "", "", &got); resp.StatusCode != 200 || got.Title != "write the tests" {
		t.Fatalf("get: %d %+v", resp.StatusCode, got)
	}
	var updated Todo
	if resp := call(t, "PATCH", base+"/1", jsonType, `{"done":true}`, &updated); resp.StatusCode != 200 ||
		!updated.Done || updated.Title != "write the tests" {
		t.Fatalf("patch: %d %+v", resp.StatusCode, updated)
	}
	if resp := call(t, "PATCH", base+"/2", jsonType, `{"title":"renamed","done":false}`, &updated); resp.StatusCode != 200 ||
		updated.Title != "renamed" {
		t.Fatalf("rename: %d %+v", resp.StatusCode, updated)
	}
	if resp := call(t, "DELETE", base+"/1", "", "", nil); resp.StatusCode != 204 {
		t.Fatalf("delete: %d", resp.StatusCode)
	}
	var problem map[string]string
	if resp := call(t, "GET", base+"/1", "", "", &problem); resp.StatusCode != 404 || problem["error"] != "no such todo" {
		t.Fatalf("get deleted: %d %v", resp.StatusCode, problem)
	}
	if resp := call(t, "DELETE", base+"/1", "", "", nil); resp.StatusCode != 404 {
		t.Fatalf("delete twice: %d", resp.StatusCode)
	}
}

// Bad input gets a clear 4xx with a JSON error, never a 500.
func TestValidation(t *testing.T) {
	base := testServer(t).URL + "/api/todos"
	call(t, "POST", base, jsonType, `{"title":"exists"}`, nil)
	cases := []struct {
		method, path, ctype, body string
		code                      int
		msg                       string
	}{
		{"POST", "", jsonType, `{"title":""}`, 400, "body title: failed notblank"},
		{"POST", "", jsonType, `{}`, 400, "body title: failed notblank"},
		{"POST", "", jsonType, `{"title":"   "}`, 400, "body title: failed notblank"},
		{"POST", "", jsonType, `{"title":"` + strings.Repeat("é", 201) + `"}`, 400, "body title: failed max=200"},
		{"POST", "", jsonType, `{"title":"a","priority":1}`, 400, `unknown field "priority"`},
		{"POST", "", jsonType, `{"title":`, 400, "invalid JSON body"},
		{"POST", "", jsonType, `{"title":5}`, 400, `field "title"`},
		{"POST", "", jsonType, `{"title":"a"}{"title":"b"}`, 400, "more data after"},
		{"POST", "", jsonType, ``, 400, "empty body"},
		{"POST", "", "text/plain", `{"title":"a"}`, 415, "Content-Type must be application/json"},
		{"POST", "", "", `{"title":"a"}`, 415, "Content-Type must be application/json"},
		{"POST", "", jsonType, `{"title":"` + strings.Repeat("x", 70<<10) + `"}`, 413, ""},
		{"GET", "/abc", "", "", 400, `path id: "abc" is not an integer`},
		{"GET", "/0", "", "", 400, "path id: failed gt=0"},
		{"GET", "/99", "", "", 404, "no such todo"},
		{"PATCH", "/1", jsonType, `{}`, 400, "nothing to update"},
		{"PATCH", "/1", jsonType, `{"done":"yes"}`, 400, `field "done"`},
		{"PATCH", "/1", jsonType, `{"title":""}`, 400, "body title: failed notblank"},
		{"PATCH", "/x", jsonType, `{"done":true}`, 400, `path id: "x" is not an integer`},
		{"PUT", "/1", jsonType, `{"title":"x"}`, 405, "Method Not Allowed"},
		{"GET", "/1/more", "", "", 404, "Not Found"},
	}
	for _, tc := range cases {
		req, _ := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
		if tc.ctype != "" {
			req.Header.Set("Content-Type", tc.ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var problem map[string]any // every error is JSON: the router's and the 413 too
		if err := json.Unmarshal(b, &problem); err != nil || resp.Header.Get("Content-Type") != jsonType {
			t.Errorf("%s %s: %d %q is not JSON", tc.method, tc.path, resp.StatusCode, b)
			continue
		}
		msg, _ := problem["error"].(string)
		if resp.StatusCode != tc.code || !strings.Contains(msg, tc.msg) {
			t.Errorf("%s %s %.40q: %d %q, want %d with %q", tc.method, tc.path, tc.body, resp.StatusCode, msg, tc.code, tc.msg)
		}
	}
}

func TestMiddlewareAndFrontEnd(t *testing.T) {
	srv := testServer(t)
	for i := range 40 { // enough todos for a list worth compressing
		call(t, "POST", srv.URL+"/api/todos", jsonType, `{"title":"todo number `+string(rune('a'+i%26))+`"}`, nil)
	}

	// gzip, for clients that accept it.
	req, _ := http.NewRequest("GET", srv.URL+"/api/todos", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultTransport.RoundTrip(req) // the raw response, not decompressed
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil || resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatalf("not gzipped: %v %v", resp.Header, err)
	}
	var list []Todo
	if err := json.NewDecoder(zr).Decode(&list); err != nil || len(list) != 40 {
		t.Fatalf("gzipped list: %d todos, %v", len(list), err)
	}
	resp.Body.Close()

	// CORS: the dev server's origin may call the API, others may not.
	for origin, allowed := range map[string]bool{"http://localhost:3000": true, "http://evil.example": false} {
		req, _ := http.NewRequest("OPTIONS", srv.URL+"/api/todos", nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		got := resp.Header.Get("Access-Control-Allow-Origin")
		if resp.StatusCode != 204 || (got == origin) != allowed || allowed && !strings.Contains(strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "content-type") {
			t.Fatalf("preflight from %s: %d %v", origin, resp.StatusCode, resp.Header)
		}
	}

	// The front-end, from the embedded files.
	resp, err = http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte("<title>gwist todos</title>")) ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("index: %d %v", resp.StatusCode, resp.Header)
	}
	resp, err = http.Get(srv.URL + "/static/app.js")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte("new EventSource(\"/api/events\")")) ||
		!strings.Contains(resp.Header.Get("Content-Type"), "javascript") {
		t.Fatalf("app.js: %d %v", resp.StatusCode, resp.Header)
	}

	// The page rendered on the server, titles escaped by html/template.
	call(t, "POST", srv.URL+"/api/todos", jsonType, `{"title":"<script>alert(1)</script>"}`, nil)
	resp, err = http.Get(srv.URL + "/list")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" ||
		!bytes.Contains(b, []byte("<li>&lt;script&gt;alert(1)&lt;/script&gt;</li>")) || !bytes.Contains(b, []byte("41 todo(s), 41 open")) {
		t.Fatalf("/list: %d %v\n%s", resp.StatusCode, resp.Header, b)
	}
}

// Under httptest too the event feed works: ServeHTTP writes it on
// net/http's goroutine for the request.
func TestEventFeedUnderHTTPTest(t *testing.T) {
	app, h := newApp(quietLogger(), "http://localhost:3000")
	srv := httptest.NewServer(app)
	defer srv.Close()
	feed := openFeed(t, srv.URL+"/api/events")
	waitForFeeds(t, h, 1)
	call(t, "POST", srv.URL+"/api/todos", jsonType, `{"title":"under httptest"}`, nil)
	if ev := feed.next(t); ev["event"] != "change" || !strings.Contains(ev["data"], `"title":"under httptest"`) {
		t.Fatalf("event: %v", ev)
	}
	feed.resp.Body.Close()
	waitForFeeds(t, h, 0) // the feed left the hub with its client
}

// waitForFeeds waits until the hub holds n feeds.
func waitForFeeds(t *testing.T, h *hub, n int) {
	t.Helper()
	if !testkit.Eventually(5*time.Second, func() bool { return h.feeds.Len() == n }) {
		t.Fatalf("the hub holds %d feeds, want %d", h.feeds.Len(), n)
	}
}

// sseClient reads one Server-Sent Events stream.
type sseClient struct {
	resp *http.Response
	br   *bufio.Reader
}

func openFeed(t *testing.T, url string) *sseClient {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("feed: %d %v", resp.StatusCode, resp.Header)
	}
	return &sseClient{resp: resp, br: bufio.NewReader(resp.Body)}
}

// next returns the next event's fields (comments skipped).
func (s *sseClient) next(t *testing.T) map[string]string {
	t.Helper()
	ev := map[string]string{}
	for {
		line, err := s.br.ReadString('\n')
		if err != nil {
			t.Fatalf("feed: %v", err)
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" && len(ev) > 0:
			return ev
		case line == "" || strings.HasPrefix(line, ":"):
		default:
			k, v, _ := strings.Cut(line, ": ")
			ev[k] = v
		}
	}
}

// The event feed over a real gwist listener: every open feed gets every
// change; a feed whose client left is dropped; Shutdown ends the others.
func TestEventFeed(t *testing.T) {
	app, h := newApp(quietLogger(), "http://localhost:3000")
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	shut := false
	t.Cleanup(func() {
		if !shut {
			_ = app.Shutdown(context.Background())
		}
	})
	base := "http://" + addr.String()
	a, b := openFeed(t, base+"/api/events"), openFeed(t, base+"/api/events")
	waitForFeeds(t, h, 2)

	call(t, "POST", base+"/api/todos", jsonType, `{"title":"shared"}`, nil)
	for i, c := range []*sseClient{a, b} {
		ev := c.next(t)
		var ch change
		if err := json.Unmarshal([]byte(ev["data"]), &ch); err != nil || ev["event"] != "change" || ev["id"] != "1" ||
			ch.Op != "created" || ch.Todo.Title != "shared" {
			t.Fatalf("feed %d: %v %+v %v", i, ev, ch, err)
		}
	}

	b.resp.Body.Close() // b's client leaves: its feed leaves the hub at once
	waitForFeeds(t, h, 1)
	call(t, "PATCH", base+"/api/todos/1", jsonType, `{"done":true}`, nil)
	if ev := a.next(t); !strings.Contains(ev["data"], `"op":"updated"`) || ev["id"] != "2" {
		t.Fatalf("feed a after b left: %v", ev)
	}

	// Shutdown ends the open feed: a's stream reaches its end.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	shut = true
	if err := app.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if _, err := io.ReadAll(a.br); err != nil {
		t.Fatalf("feed after Shutdown: %v", err)
	}
}

// The program itself stops gracefully on SIGTERM: it serves, then exits 0.
func TestGracefulShutdown(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "TODO_RUN_MAIN=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "todo: listening on ")
	if err != nil || !ok {
		t.Fatalf("startup: %q %v\n%s", line, err, stderr.String())
	}
	resp, err := http.Get(url + "/api/todos")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET: %v %v", resp, err)
	}
	resp.Body.Close()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(stderr.String(), "todo: shutting down") {
			t.Fatalf("exit: %v\n%s", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no exit after SIGTERM")
	}
}
