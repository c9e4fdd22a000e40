package gwist_test

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

// wsBrowserPage opens a WebSocket to the page's own host, sends a text and
// a binary message, checks the echoes, closes with 1000 and reports in the
// body's data-result. Its image /hold, which the server answers once the
// WebSocket has closed, holds the page's load event (after which Chromium
// dumps the DOM) while the socket works.
const wsBrowserPage = `<!doctype html><body data-result="pending"><img src="/hold"><script>
// After a first fetch, so that an HTTP/2 page's connection (and its
// SETTINGS) is established when the socket looks for one.
fetch("/").then(() => {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
  ws.binaryType = "arraybuffer";
  const got = [];
  ws.onopen = () => { ws.send("héllo"); ws.send(new Uint8Array([0, 1, 255]).buffer); };
  ws.onmessage = (e) => {
    got.push(typeof e.data === "string" ? "text:" + e.data : "bin:" + Array.from(new Uint8Array(e.data)).join(","));
    if (got.length === 2) ws.close(1000, "done");
  };
  ws.onclose = (e) => document.body.setAttribute("data-result", "closed:" + e.code + ":" + got.join("|"));
  ws.onerror = () => document.body.setAttribute("data-result", "error");
});
</script></body>`

func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// chromiumDOM loads url in headless Chromium and returns the DOM once the
// page has loaded.
func chromiumDOM(t *testing.T, chromium, url string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run"}, extra...)
	out, err := exec.CommandContext(ctx, chromium, append(args, "--dump-dom", url)...).Output()
	if err != nil {
		t.Fatalf("chromium %s: %v", url, err)
	}
	return string(out)
}

// Headless Chromium's WebSocket over ws:// and wss:// (HTTP/1.1): echo of
// text and binary, and its close handshake. Skipped where no Chromium is
// installed (apt-get install chromium).
func TestWebSocketChromium(t *testing.T) {
	chromium := findChromium()
	if chromium == "" {
		t.Skip("no chromium to run a headless browser (apt-get install chromium)")
	}
	newApp := func(rec *echoRecorder) *gwist.App {
		app := gwist.New(gwist.WithLogger(discardLogger()))
		app.GET("/", func(c *gwist.Ctx) error { return c.Bytes(200, "text/html; charset=utf-8", []byte(wsBrowserPage)) })
		app.GET("/ws", gwist.WebSocket(rec.handler(gwist.WSConfig{})))
		app.GET("/hold", holdUntilClosed(rec))
		return app
	}
	plainRec, tlsRec := &echoRecorder{}, &echoRecorder{}
	plainAddr := startApp(t, newApp(plainRec))
	tlsAddr := startTLS(t, newApp(tlsRec), serverTLSConfig(t))
	const want = `data-result="closed:1000:text:héllo|bin:0,1,255"`
	for _, tc := range []struct {
		url   string
		rec   *echoRecorder
		extra []string
	}{
		{"http://localhost:" + portOf(plainAddr) + "/", plainRec, nil},
		{"https://localhost:" + portOf(tlsAddr) + "/", tlsRec, []string{"--ignore-certificate-errors"}},
	} {
		t.Run(strings.SplitN(tc.url, ":", 2)[0], func(t *testing.T) {
			if dom := chromiumDOM(t, chromium, tc.url, tc.extra...); !strings.Contains(dom, want) {
				t.Fatalf("page result:\n%s", dom)
			}
			waitFor(t, 5*time.Second, "OnClose", func() bool { return len(tc.rec.closed()) == 1 })
			if got := tc.rec.closed()[0]; got != 1000 {
				t.Fatalf("OnClose %d, want 1000", got)
			}
		})
	}
}

// holdUntilClosed answers once rec has seen a WebSocket close (or after
// 20 s).
func holdUntilClosed(rec *echoRecorder) gwist.HandlerFunc {
	return func(c *gwist.Ctx) error {
		testkit.Eventually(20*time.Second, func() bool { return len(rec.closed()) > 0 })
		return c.Bytes(200, "image/gif", []byte("GIF89a\x01\x00\x01\x00\x00\x00\x00;"))
	}
}

func portOf(addr string) string {
	_, port, _ := strings.Cut(addr, ":")
	return port
}

// Headless Chromium on a page served over HTTP/2 (TLS, ALPN h2), with
// SETTINGS_ENABLE_CONNECT_PROTOCOL advertised: the page's WebSocket works,
// and when Chromium opens it as an extended CONNECT on the page's
// connection (RFC 8441) the handler sees it over HTTP/2. Skipped, after
// checking the page, where Chromium keeps WebSockets on HTTP/1.1.
func TestWebSocketChromiumHTTP2(t *testing.T) {
	chromium := findChromium()
	if chromium == "" {
		t.Skip("no chromium to run a headless browser (apt-get install chromium)")
	}
	rec := &echoRecorder{}
	var overH2 atomic.Int32
	h := rec.handler(gwist.WSConfig{})
	h.OnOpen = func(ws *gwist.WSConn) {
		if ws.OverHTTP2() {
			overH2.Add(1)
		}
	}
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
	app.GET("/", func(c *gwist.Ctx) error { return c.Bytes(200, "text/html; charset=utf-8", []byte(wsBrowserPage)) })
	app.GET("/ws", gwist.WebSocket(h))
	app.GET("/hold", holdUntilClosed(rec))
	var seenMu sync.Mutex
	var seen []string
	app.Use(func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			err := next(c)
			seenMu.Lock()
			seen = append(seen, c.Method()+" "+c.Path()+" "+strconv.Itoa(c.Request().ProtoMajor))
			seenMu.Unlock()
			return err
		}
	})
	defer func() { seenMu.Lock(); t.Logf("requests: %q", seen); seenMu.Unlock() }()
	addr := startTLS(t, app, serverTLSConfig(t))
	const want = `data-result="closed:1000:text:héllo|bin:0,1,255"`
	if dom := chromiumDOM(t, chromium, "https://localhost:"+portOf(addr)+"/", append([]string{"--ignore-certificate-errors"}, chromiumH2Flags...)...); !strings.Contains(dom, want) {
		t.Fatalf("page result:\n%s", dom)
	}
	waitFor(t, 5*time.Second, "OnClose", func() bool { return len(rec.closed()) == 1 })
	if overH2.Load() != 1 {
		// Debian's Chromium 148 loads the page over h2 but opens its
		// WebSocket on a new HTTP/1.1 connection even with the setting
		// advertised; the page works either way. TestWebSocketHTTP2
		// covers RFC 8441 with x/net's Framer.
		t.Skipf("Chromium opened its WebSocket over HTTP/1.1, not RFC 8441 (page streams on h2: %d); set CHROMIUM_H2_FLAGS to try flags",
			app.Stats().HTTP2.StreamsOpened)
	}
}

// chromiumH2Flags: extra flags for the RFC 8441 test (CHROMIUM_H2_FLAGS).
var chromiumH2Flags = strings.Fields(os.Getenv("CHROMIUM_H2_FLAGS"))
