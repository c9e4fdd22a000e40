package gwist_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// wsBrowserPage opens a WebSocket to the page's own host, sends a text and
// a binary message, checks the echoes, closes with 1000 and reports in the
// body's data-result.
const wsBrowserPage = `<!doctype html><body data-result="pending"><script>
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
</script></body>`

func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// chromiumDOM loads url in headless Chromium and returns the DOM after
// the page's scripts ran (virtual time lets the socket's events finish).
func chromiumDOM(t *testing.T, chromium, url string, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	args := append([]string{"--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--virtual-time-budget=10000"}, extra...)
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

func portOf(addr string) string {
	_, port, _ := strings.Cut(addr, ":")
	return port
}
