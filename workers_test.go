package gwist_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// barrier lets n handlers through only once all n are inside at the same
// time; a handler still waiting after the timeout reports how many arrived.
type barrier struct {
	mu      sync.Mutex
	arrived int
	all     chan struct{}
}

func newBarrier() *barrier { return &barrier{all: make(chan struct{})} }

func (b *barrier) wait(n int, timeout time.Duration) (int, bool) {
	b.mu.Lock()
	b.arrived++
	if b.arrived == n {
		close(b.all)
	}
	b.mu.Unlock()
	select {
	case <-b.all:
		return n, true
	case <-time.After(timeout):
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.arrived, false
	}
}

// Every handler blocks until all of them run at once: a request queued
// behind a blocked handler while the pool has room would never get in.
func TestWorkersRunBlockedHandlersConcurrently(t *testing.T) {
	const n = 12
	b := newBarrier()
	app := gwist.New(gwist.WithWorkers(16))
	app.GET("/barrier", func(c *gwist.Ctx) error {
		if got, ok := b.wait(n, 5*time.Second); !ok {
			return c.String(500, fmt.Sprintf("only %d of %d handlers ran at once", got, n))
		}
		return c.String(200, "together")
	})
	addr := startApp(t, app)
	conns := make([]*rawConn, n)
	for i := range conns {
		conns[i] = dialRaw(t, addr)
	}
	for _, r := range conns {
		r.send("GET /barrier HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	for i, r := range conns {
		if resp, body := r.readResponse("GET"); resp.StatusCode != 200 {
			t.Fatalf("conn %d: %d %q", i, resp.StatusCode, body)
		}
	}
}

// A handler that blocks does not slow the keep-alive traffic of others.
func TestWorkersServeOthersWhileOneBlocks(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{})
	app := gwist.New(gwist.WithWorkers(4))
	app.GET("/block", func(c *gwist.Ctx) error {
		close(started)
		<-release
		return c.String(200, "done")
	})
	app.GET("/fast", func(c *gwist.Ctx) error { return c.String(200, "fast") })
	addr := startApp(t, app)
	blocked := dialRaw(t, addr)
	blocked.send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
	<-started
	other := dialRaw(t, addr)
	for i := range 200 {
		other.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp, body := other.readResponse("GET"); resp.StatusCode != 200 || body != "fast" {
			t.Fatalf("request %d: %d %q", i, resp.StatusCode, body)
		}
	}
	close(release)
	if resp, body := blocked.readResponse("GET"); resp.StatusCode != 200 || body != "done" {
		t.Fatalf("blocked request: %d %q", resp.StatusCode, body)
	}
}

// The bound counts batches that are running; once they finish the pool
// takes work again.
func TestWorkersRefuseBeyondSizeThenRecover(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 2)
	app := gwist.New(gwist.WithWorkers(2))
	app.GET("/block", func(c *gwist.Ctx) error {
		started <- struct{}{}
		<-release
		return c.String(200, "done")
	})
	app.GET("/fast", func(c *gwist.Ctx) error { return c.String(200, "fast") })
	addr := startApp(t, app)
	holders := []*rawConn{dialRaw(t, addr), dialRaw(t, addr)}
	for _, r := range holders {
		r.send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
		<-started
	}
	refused := dialRaw(t, addr)
	refused.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, _ := refused.readResponse("GET"); resp.StatusCode != 503 {
		t.Fatalf("third request with 2 workers busy: %d, want 503", resp.StatusCode)
	}
	refused.expectClosed()
	close(release)
	for i, r := range holders {
		if resp, body := r.readResponse("GET"); resp.StatusCode != 200 || body != "done" {
			t.Fatalf("holder %d: %d %q", i, resp.StatusCode, body)
		}
	}
	// A holder's response can reach the client a moment before its drainer
	// counts the batch finished, so give the count a little time.
	for attempt := 0; ; attempt++ {
		after := dialRaw(t, addr)
		after.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, body := after.readResponse("GET")
		if resp.StatusCode == 200 && body == "fast" {
			return
		}
		if resp.StatusCode != 503 || attempt == 50 {
			t.Fatalf("after the pool drained: %d %q", resp.StatusCode, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
