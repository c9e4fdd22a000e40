package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/syncbuf"
	"github.com/gwist/gwist/internal/testkit"
)

// findChromium returns a headless-capable Chromium, or "".
func findChromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// dumpDOM loads url in headless Chromium and returns the DOM once its
// scripts have run and the network is idle (virtual time lets fetch and
// timers finish).
func dumpDOM(t *testing.T, chromium, url string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, chromium, "--headless=new", "--no-sandbox", "--disable-gpu",
		"--no-first-run", "--virtual-time-budget=10000", "--dump-dom", url).Output()
	if err != nil {
		t.Fatalf("chromium %s: %v", url, err)
	}
	return string(out)
}

// syncBuffer is a log or output sink read while it is written.
type syncBuffer = syncbuf.Buffer

// A real browser: a page on the allowed origin POSTs JSON to the API, which
// needs a CORS preflight (the access log shows the OPTIONS), and gets its
// answer; a page on another origin is refused by the browser. Skipped
// where no Chromium is installed (`apt-get install chromium`). (The
// embedded front-end is not loaded here: its event stream keeps the page
// busy, and --dump-dom waits for the network to be idle.)
func TestBrowser(t *testing.T) {
	chromium := findChromium()
	if chromium == "" {
		t.Skip("no chromium to run a headless browser (apt-get install chromium)")
	}
	pageLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	origin := "http://localhost:" + strings.TrimPrefix(pageLn.Addr().String(), "127.0.0.1:")
	logs := &syncBuffer{}
	app, _ := newApp(slog.New(slog.NewTextHandler(logs, nil)), origin)
	addr := testkit.Serve(t, func() (net.Addr, error) { return app.Start("127.0.0.1:0") }, app.Shutdown)
	api := "http://" + addr
	page := `<!doctype html><body data-result="pending"><script>
fetch("` + api + `/api/todos", {method: "POST", headers: {"Content-Type": "application/json"},
  body: JSON.stringify({title: "from the browser"})})
  .then(r => r.json()).then(j => document.body.setAttribute("data-result", "ok:" + j.title))
  .catch(e => document.body.setAttribute("data-result", "refused"));
</script></body>`
	pageSrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, page)
	})}
	go pageSrv.Serve(pageLn)
	t.Cleanup(func() { pageSrv.Close() })

	dom := dumpDOM(t, chromium, origin+"/")
	if !strings.Contains(dom, `data-result="ok:from the browser"`) {
		t.Fatalf("cross-origin POST from the allowed origin:\n%s\nlog:\n%s", dom, logs)
	}
	if !strings.Contains(logs.String(), "method=OPTIONS") {
		t.Fatalf("no preflight in the access log:\n%s", logs)
	}
	// The same page from another origin (127.0.0.1 is not localhost).
	if dom := dumpDOM(t, chromium, "http://"+pageLn.Addr().String()+"/"); !strings.Contains(dom, `data-result="refused"`) {
		t.Fatalf("cross-origin POST from an origin not allowed:\n%s", dom)
	}
}
