package main

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/websocket"
	"github.com/gwist/gwist/websocket/wsclient"
)

// GET /ws pushes every change as a JSON text message, like the SSE feed:
// over gwist's listener and under httptest alike, read with gwist's
// WebSocket client.
func TestWebSocketChanges(t *testing.T) {
	app, h := newApp(quietLogger(), "http://localhost:3000")
	addr := testkit.Serve(t, func() (net.Addr, error) { return app.Start("127.0.0.1:0") }, app.Shutdown)
	other, oh := newApp(quietLogger(), "http://localhost:3000")
	srv := httptest.NewServer(other)
	defer srv.Close()
	for name, tc := range map[string]struct {
		base string
		h    *hub
	}{"listener": {"http://" + addr, h}, "httptest": {srv.URL, oh}} {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, _, err := wsclient.Dial(ctx, "ws"+strings.TrimPrefix(tc.base, "http")+"/ws", nil)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		testkit.Eventually(5*time.Second, func() bool { return tc.h.ws.Len() == 1 })
		call(t, "POST", tc.base+"/api/todos", jsonType, `{"title":"pushed"}`, nil)
		op, data, err := c.ReadMessage()
		var ch change
		if err == nil {
			err = json.Unmarshal(data, &ch)
		}
		if err != nil || op != websocket.OpText || ch.Op != "created" || ch.Todo.Title != "pushed" {
			t.Fatalf("%s: message %q: %+v %v", name, data, ch, err)
		}
		c.Close(websocket.CloseNormal, "")
		if !testkit.Eventually(5*time.Second, func() bool { return tc.h.ws.Len() == 0 }) {
			t.Fatalf("%s: the closed socket is still in the hub", name)
		}
	}
}

// The embedded front-end in headless Chromium: the page opens its
// WebSocket (its status line says "live" only then), and a todo created
// as soon as the socket is in the hub shows up in the page's list. (The
// page also reloads the list when the socket opens, so this does not tell
// the pushed change from the reload; TestWebSocketChanges checks the push,
// and the root package's TestWebSocketChromium the browser's socket.)
func TestBrowserWebSocket(t *testing.T) {
	chromium := findChromium()
	if chromium == "" {
		t.Skip("no chromium to run a headless browser (apt-get install chromium)")
	}
	app, h := newApp(quietLogger(), "http://localhost:3000")
	// The page's list request waits until the todo exists: a request in
	// flight keeps Chromium's virtual time (and the DOM dump) from running
	// out while the socket connects under load.
	created := make(chan struct{})
	app.Use(func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			if c.Method() == "GET" && c.Path() == "/api/todos" {
				select {
				case <-created:
				case <-time.After(20 * time.Second):
				}
			}
			return next(c)
		}
	})
	addr := testkit.Serve(t, func() (net.Addr, error) { return app.Start("127.0.0.1:0") }, app.Shutdown)
	base := "http://" + addr
	go func() {
		defer close(created)
		testkit.Eventually(20*time.Second, func() bool { return h.ws.Len() > 0 })
		req, _ := http.NewRequest("POST", base+"/api/todos", strings.NewReader(`{"title":"live from the socket"}`))
		req.Header.Set("Content-Type", jsonType)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	if dom := dumpDOM(t, chromium, base+"/"); !strings.Contains(dom, "live from the socket") ||
		!strings.Contains(dom, `<p id="status">live</p>`) {
		t.Fatalf("the change pushed over the WebSocket is not in the page:\n%s", dom)
	}
}
