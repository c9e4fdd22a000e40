package gwist_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// feedHub keeps the feeds handlers opened, for tests to send to.
type feedHub struct {
	mu    sync.Mutex
	feeds []*gwist.SSEFeed
}

func (h *feedHub) add(f *gwist.SSEFeed) {
	h.mu.Lock()
	h.feeds = append(h.feeds, f)
	h.mu.Unlock()
}

func (h *feedHub) all() []*gwist.SSEFeed {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*gwist.SSEFeed(nil), h.feeds...)
}

func feedApp(hub *feedHub, opts ...gwist.Option) *gwist.App {
	app := gwist.New(append([]gwist.Option{gwist.WithLogger(discardLogger())}, opts...)...)
	app.GET("/feed", func(c *gwist.Ctx) error {
		f, err := c.SSEFeed()
		if err != nil {
			return err
		}
		hub.add(f)
		return nil
	})
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "plain") })
	return app
}

// openFeed sends GET /feed on a raw connection and returns the reader of
// its event stream once the head has arrived.
func openFeed(t *testing.T, addr string) (*rawConn, *bufio.Reader) {
	t.Helper()
	r := dialRaw(t, addr)
	r.send("GET /feed HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, err := http.ReadResponse(r.br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" ||
		resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("feed head: %d %v", resp.StatusCode, resp.Header)
	}
	return r, bufio.NewReader(resp.Body)
}

// readEvent reads one event (up to its blank line), skipping heartbeats.
func readEvent(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	var ev strings.Builder
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading event after %q: %v", ev.String(), err)
		}
		if line == "\n" {
			if ev.Len() > 0 {
				return ev.String()
			}
			continue
		}
		if !strings.HasPrefix(line, ":") {
			ev.WriteString(line)
		}
	}
}

// Feeds hold no goroutine once their handlers return: 200 open feeds add
// (almost) no goroutines, every one gets the events sent to it, a feed
// closed by the server ends its stream and the connection serves its next
// request, and a client that leaves ends its feed (Done, ErrClientGone).
func TestSSEFeedNeedsNoGoroutine(t *testing.T) {
	const n = 200
	hub := &feedHub{}
	app := feedApp(hub, gwist.WithWorkers(4))
	addr := startApp(t, app)
	before := runtime.NumGoroutine()
	conns := make([]*rawConn, n)
	readers := make([]*bufio.Reader, n)
	for i := range conns {
		conns[i], readers[i] = openFeed(t, addr)
	}
	waitFor(t, 5*time.Second, "every feed registered", func() bool { return len(hub.all()) == n })
	waitFor(t, 5*time.Second, "Stats().Feeds", func() bool { return app.Stats().Feeds == n })
	if grown := runtime.NumGoroutine() - before; grown > 20 {
		t.Fatalf("%d open feeds hold %d more goroutines", n, grown)
	}
	for i, f := range hub.all() {
		if err := f.Send(gwist.SSEEvent{ID: fmt.Sprint(i), Data: "line one\nline two"}); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
	}
	for i, br := range readers {
		if ev := readEvent(t, br); !strings.Contains(ev, "data: line one\ndata: line two\n") {
			t.Fatalf("client %d got %q", i, ev)
		}
	}
	// The first client: the server ends its feed; its connection goes on.
	feeds := hub.all()
	first := feeds[0]
	var firstReader *bufio.Reader
	var firstConn *rawConn
	// Find which connection got which feed by sending it a marked event.
	if err := first.Send(gwist.SSEEvent{Data: "you are first"}); err != nil {
		t.Fatal(err)
	}
	for i, br := range readers {
		_ = conns[i].c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		line, _ := br.Peek(len("data: you are first"))
		_ = conns[i].c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if string(line) == "data: you are first" {
			firstReader, firstConn = br, conns[i]
			conns[i] = nil
			break
		}
	}
	if firstReader == nil {
		t.Fatal("no client got the event sent to the first feed")
	}
	readEvent(t, firstReader)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	<-first.Done()
	if !errors.Is(first.Err(), gwist.ErrFeedClosed) {
		t.Fatalf("closed feed: Err %v", first.Err())
	}
	if err := first.Send(gwist.SSEEvent{Data: "late"}); !errors.Is(err, gwist.ErrFeedClosed) {
		t.Fatalf("send after Close: %v", err)
	}
	if rest, err := firstReader.ReadString('\n'); err == nil || rest != "" {
		t.Fatalf("after Close the stream went on: %q, %v", rest, err)
	}
	firstConn.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, body := firstConn.readResponse("GET"); resp.StatusCode != 200 || body != "plain" {
		t.Fatalf("request after the feed: %d %q", resp.StatusCode, body)
	}
	// The others leave: their feeds end.
	for _, r := range conns {
		if r != nil {
			r.c.Close()
		}
	}
	for _, f := range feeds[1:] {
		select {
		case <-f.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("a feed whose client left is still open")
		}
		if err := f.Send(gwist.SSEEvent{Data: "gone"}); !errors.Is(err, gwist.ErrClientGone) {
			t.Fatalf("send after the client left: %v", err)
		}
	}
	waitFor(t, 5*time.Second, "Stats().Feeds back to 0", func() bool { return app.Stats().Feeds == 0 })
}

// An idle feed gets heartbeat comments from the event loop.
func TestSSEFeedHeartbeat(t *testing.T) {
	hub := &feedHub{}
	addr := startApp(t, feedApp(hub, gwist.WithSSEHeartbeat(20*time.Millisecond)))
	_, br := openFeed(t, addr)
	for beats := 0; beats < 3; {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d heartbeats: %v", beats, err)
		}
		if line == ":\n" {
			beats++
		}
	}
}

// A client that does not read: Send fails with ErrSlowClient once the cap
// is queued, instead of queueing without bound; the feed stays open.
func TestSSEFeedSlowClient(t *testing.T) {
	hub := &feedHub{}
	addr := startApp(t, feedApp(hub, gwist.WithMaxStreamQueued(64<<10)))
	openFeed(t, addr)
	waitFor(t, 5*time.Second, "the feed", func() bool { return len(hub.all()) == 1 })
	f := hub.all()[0]
	data := strings.Repeat("x", 4<<10)
	var sent int
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := f.Send(gwist.SSEEvent{Data: data})
		if errors.Is(err, gwist.ErrSlowClient) {
			break
		}
		if err != nil {
			t.Fatalf("after %d bytes: %v", sent, err)
		}
		sent += len(data)
		if time.Now().After(deadline) || sent > 512<<20 {
			t.Fatalf("%d bytes queued for a client that reads nothing, no ErrSlowClient", sent)
		}
		time.Sleep(100 * time.Microsecond) // let the loop write (or not) what is queued
	}
	if f.Err() != nil {
		t.Fatalf("the feed ended on ErrSlowClient: %v", f.Err())
	}
	t.Logf("ErrSlowClient after %d KiB (socket buffers, gnet's buffer and the 64 KiB cap)", sent>>10)
}

// Shutdown ends open feeds: the stream ends cleanly and Done is closed.
func TestSSEFeedEndsOnShutdown(t *testing.T) {
	hub := &feedHub{}
	app := feedApp(hub)
	bound, err := app.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r, br := openFeed(t, bound.String())
	waitFor(t, 5*time.Second, "the feed", func() bool { return len(hub.all()) == 1 })
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		done <- app.Shutdown(ctx)
	}()
	if rest, err := br.ReadString('\n'); err == nil || rest != "" {
		t.Fatalf("the feed went on during Shutdown: %q %v", rest, err)
	}
	r.expectClosed()
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	// Well under the context's 10 s, by which Shutdown would cut the feed.
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("Shutdown took %v: it waited for the feed instead of ending it", took)
	}
	f := hub.all()[0]
	select {
	case <-f.Done():
	default:
		t.Fatal("Done not closed after Shutdown")
	}
}

// Where a feed cannot outlive its handler it says so and sends nothing:
// an inline app. A HEAD request gets the stream's head (200, no body,
// as net/http answers it) and a feed that has ended.
func TestSSEFeedRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inline bool
		method string
		want   error
	}{
		{"inline", true, "GET", gwist.ErrInlineStreaming},
		{"HEAD", false, "HEAD", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan error, 1)
			app := gwist.New(gwist.WithInline(tc.inline))
			app.Handle(tc.method, "/feed", func(c *gwist.Ctx) error {
				feed, err := c.SSEFeed()
				got <- err
				if err == nil {
					if err := feed.Send(gwist.SSEEvent{Data: "x"}); !errors.Is(err, gwist.ErrFeedClosed) {
						t.Errorf("Send on a HEAD request's feed: %v", err)
					}
					return nil
				}
				return c.String(503, "no feed")
			})
			r := dialRaw(t, startApp(t, app))
			r.send(tc.method + " /feed HTTP/1.1\r\nHost: x\r\n\r\n")
			resp, _ := r.readResponse(tc.method)
			if err := <-got; !errors.Is(err, tc.want) {
				t.Fatalf("SSEFeed: %v, want %v", err, tc.want)
			}
			if tc.method == "GET" && (resp.StatusCode != 503 || resp.Header.Get("Content-Type") == "text/event-stream") {
				t.Fatalf("response after a refused feed: %d %v", resp.StatusCode, resp.Header)
			}
			if tc.method == "HEAD" && (resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream") {
				t.Fatalf("HEAD: %d %v", resp.StatusCode, resp.Header)
			}
		})
	}
}
