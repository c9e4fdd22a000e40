package gwist_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// hubApp puts every feed of GET /feed in hub.
func hubApp(hub *gwist.SSEHub, opts ...gwist.Option) *gwist.App {
	app := gwist.New(append([]gwist.Option{gwist.WithLogger(discardLogger()), gwist.WithHTTP2(true)}, opts...)...)
	app.GET("/feed", func(c *gwist.Ctx) error {
		f, err := c.SSEFeed()
		if err != nil {
			return err
		}
		hub.Add(f)
		return nil
	})
	return app
}

// feedClient is one EventSource-like reader of GET /feed.
type feedClient struct {
	resp *http.Response
	br   *bufio.Reader
}

func openHubFeed(t *testing.T, cl *http.Client, url string) *feedClient {
	t.Helper()
	resp, err := cl.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("feed: %d %v", resp.StatusCode, resp.Header)
	}
	return &feedClient{resp: resp, br: bufio.NewReader(resp.Body)}
}

// The hub over a gwist listener (HTTP/1.1 and h2c) and under ServeHTTP
// (httptest.NewServer): Publish reaches every feed once; a feed whose
// client leaves is out of the hub at once, with no Publish to find it;
// Close ends the rest.
func TestSSEHub(t *testing.T) {
	for _, mode := range []string{"h1", "h2c", "httptest"} {
		t.Run(mode, func(t *testing.T) {
			hub := gwist.NewSSEHub()
			app := hubApp(hub)
			var base string
			cl := newClient(t)
			switch mode {
			case "httptest":
				srv := httptest.NewServer(app)
				t.Cleanup(srv.Close)
				base = srv.URL
			case "h2c":
				cl = h2cClient(t)
				fallthrough
			default:
				base = "http://" + startApp(t, app)
			}
			feeds := []*feedClient{openHubFeed(t, cl, base+"/feed"), openHubFeed(t, cl, base+"/feed"), openHubFeed(t, cl, base+"/feed")}
			waitFor(t, 5*time.Second, "three feeds in the hub", func() bool { return hub.Len() == 3 })
			sent, dropped, err := hub.Publish(gwist.SSEEvent{ID: "1", Event: "change", Data: "line one\nline two"})
			if sent != 3 || dropped != 0 || err != nil {
				t.Fatalf("Publish: %d %d %v", sent, dropped, err)
			}
			for i, f := range feeds {
				if ev := readEvent(t, f.br); ev != "id: 1\nevent: change\ndata: line one\ndata: line two\n" {
					t.Fatalf("feed %d: %q", i, ev)
				}
			}
			feeds[2].resp.Body.Close() // the client leaves: out of the hub without a Publish
			waitFor(t, 5*time.Second, "the ended feed to leave the hub", func() bool { return hub.Len() == 2 })
			if _, _, err := hub.Publish(gwist.SSEEvent{Event: "a\nb"}); !errors.Is(err, gwist.ErrSSEField) {
				t.Fatalf("Publish of a bad event: %v", err)
			}
			hub.Close()
			for i, f := range feeds[:2] {
				if rest, err := io.ReadAll(f.br); err != nil || strings.Contains(string(rest), "data:") {
					t.Fatalf("feed %d after Close: %q %v", i, rest, err)
				}
			}
			waitFor(t, 5*time.Second, "an empty hub", func() bool { return hub.Len() == 0 })
		})
	}
}

// A feed whose client stops reading is dropped by Publish (ErrSlowClient:
// closed, out of the hub) while the others keep getting every event.
func TestSSEHubDropsSlowFeed(t *testing.T) {
	for _, mode := range []string{"listener", "httptest"} {
		t.Run(mode, func(t *testing.T) {
			hub := gwist.NewSSEHub()
			app := hubApp(hub, gwist.WithMaxStreamQueued(64<<10))
			var addr string
			if mode == "httptest" {
				srv := httptest.NewServer(app)
				t.Cleanup(srv.Close)
				addr = strings.TrimPrefix(srv.URL, "http://")
			} else {
				addr = startApp(t, app)
			}
			stuck, _ := net.Dial("tcp", addr) // sends the request, never reads
			t.Cleanup(func() { stuck.Close() })
			stuck.Write([]byte("GET /feed HTTP/1.1\r\nHost: x\r\n\r\n"))
			waitFor(t, 5*time.Second, "the stuck feed", func() bool { return hub.Len() == 1 })
			reader := openHubFeed(t, newClient(t), "http://"+addr+"/feed")
			waitFor(t, 5*time.Second, "both feeds", func() bool { return hub.Len() == 2 })
			// The reader counts the events it gets; each Publish waits for it,
			// so the reading feed never has more than one event queued.
			received := make(chan int, 1024)
			go func() {
				n := 0
				for {
					line, err := reader.br.ReadString('\n')
					if err != nil {
						close(received)
						return
					}
					if strings.HasPrefix(line, "id: ") {
						n++
						received <- n
					}
				}
			}()
			waitReceived := func(want int) {
				t.Helper()
				timeout := time.After(10 * time.Second)
				for {
					select {
					case n, ok := <-received:
						if !ok {
							t.Fatalf("the reading feed ended after %d events", want-1)
						}
						if n == want {
							return
						}
					case <-timeout:
						t.Fatalf("the reading feed did not get event %d", want)
					}
				}
			}
			data := strings.Repeat("x", 8<<10)
			published, dropped := 0, 0
			for deadline := time.Now().Add(30 * time.Second); dropped == 0; {
				if time.Now().After(deadline) {
					t.Fatalf("no feed dropped after %d events of 8 KiB", published)
				}
				var sent int
				sent, dropped, _ = hub.Publish(gwist.SSEEvent{ID: "x", Data: data})
				published++
				if sent+dropped != 2 || dropped > 1 {
					t.Fatalf("Publish %d: sent %d, dropped %d", published, sent, dropped)
				}
				waitReceived(published)
			}
			if hub.Len() != 1 {
				t.Fatalf("%d feeds in the hub after dropping the slow one", hub.Len())
			}
			for range 3 {
				hub.Publish(gwist.SSEEvent{ID: "x", Data: "after"})
				published++
				waitReceived(published)
			}
			hub.Close()
			t.Logf("dropped after %d events of 8 KiB", published-3)
		})
	}
}

// Under ServeHTTP an SSEFeed ends when its client leaves (Done, Err) and
// when the App shuts down; with a ResponseWriter that cannot flush it is
// refused.
func TestSSEFeedUnderServeHTTP(t *testing.T) {
	hub := &feedHub{}
	app := feedApp(hub)
	srv := httptest.NewServer(app)
	defer srv.Close()
	cl := newClient(t)
	a := openHubFeed(t, cl, srv.URL+"/feed")
	waitFor(t, 5*time.Second, "the feed", func() bool { return len(hub.all()) == 1 })
	f := hub.all()[0]
	if err := f.Send(gwist.SSEEvent{Data: "hello"}); err != nil {
		t.Fatal(err)
	}
	if ev := readEvent(t, a.br); ev != "data: hello\n" {
		t.Fatalf("event %q", ev)
	}
	a.resp.Body.Close()
	select {
	case <-f.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the feed did not end when its client left")
	}
	if !errors.Is(f.Err(), gwist.ErrClientGone) || !errors.Is(f.Send(gwist.SSEEvent{Data: "x"}), gwist.ErrClientGone) {
		t.Fatalf("after the client left: %v", f.Err())
	}

	b := openHubFeed(t, cl, srv.URL+"/feed")
	waitFor(t, 5*time.Second, "the second feed", func() bool { return len(hub.all()) == 2 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := app.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(b.br); err != nil {
		t.Fatalf("the feed after Shutdown: %v", err)
	}
	if err := hub.all()[1].Err(); !errors.Is(err, gwist.ErrFeedClosed) {
		t.Fatalf("Err after Shutdown: %v", err)
	}

	// A ResponseWriter that cannot flush.
	plain := gwist.New()
	got := make(chan error, 1)
	plain.GET("/feed", func(c *gwist.Ctx) error {
		_, err := c.SSEFeed()
		got <- err
		return c.String(200, "no feed")
	})
	w := &noFlushWriter{h: http.Header{}}
	plain.ServeHTTP(w, httptest.NewRequest("GET", "/feed", nil))
	if err := <-got; !errors.Is(err, gwist.ErrFeedNeedsLoop) || w.code != 200 {
		t.Fatalf("without Flush: %v %d", err, w.code)
	}
}

type noFlushWriter struct {
	h    http.Header
	code int
}

func (w *noFlushWriter) Header() http.Header         { return w.h }
func (w *noFlushWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *noFlushWriter) WriteHeader(code int)        { w.code = code }
