package gwist_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
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

// startBlockingApp serves GET /block, whose handlers report on started and
// then wait until release is called, and GET /fast, on a pool of the given
// size. release is idempotent and also runs when the test ends.
func startBlockingApp(t *testing.T, workers int) (addr string, started <-chan struct{}, release func()) {
	t.Helper()
	unblock := make(chan struct{})
	entered := make(chan struct{}, 16)
	var once sync.Once
	release = func() { once.Do(func() { close(unblock) }) }
	app := gwist.New(gwist.WithWorkers(workers))
	app.GET("/block", func(c *gwist.Ctx) error {
		entered <- struct{}{}
		<-unblock
		return c.String(200, "done")
	})
	app.GET("/fast", func(c *gwist.Ctx) error { return c.String(200, "fast") })
	addr = startApp(t, app)
	t.Cleanup(release) // runs before startApp's shutdown
	return addr, entered, release
}

// A handler that blocks does not slow the keep-alive traffic of others.
func TestWorkersServeOthersWhileOneBlocks(t *testing.T) {
	addr, started, release := startBlockingApp(t, 4)
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
	release()
	if resp, body := blocked.readResponse("GET"); resp.StatusCode != 200 || body != "done" {
		t.Fatalf("blocked request: %d %q", resp.StatusCode, body)
	}
}

// With every worker busy a request gets 503 with Retry-After and a close;
// the bound counts batches that are running, so once they finish the pool
// takes work again.
func TestWorkersRefuseBeyondSizeThenRecover(t *testing.T) {
	for _, size := range []int{1, 2} {
		t.Run(fmt.Sprintf("size=%d", size), func(t *testing.T) {
			addr, started, release := startBlockingApp(t, size)
			holders := make([]*rawConn, size)
			for i := range holders {
				holders[i] = dialRaw(t, addr)
				holders[i].send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
				<-started
			}
			refused := dialRaw(t, addr)
			refused.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
			resp, _ := refused.readResponse("GET")
			if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("with %d workers busy: %d Retry-After=%q, want 503 with Retry-After",
					size, resp.StatusCode, resp.Header.Get("Retry-After"))
			}
			refused.expectClosed()
			release()
			for i, r := range holders {
				if resp, body := r.readResponse("GET"); resp.StatusCode != 200 || body != "done" {
					t.Fatalf("holder %d: %d %q", i, resp.StatusCode, body)
				}
			}
			// A holder's response can reach the client a moment before its
			// drainer counts the batch finished, so poll (a 503 until then)
			// with a deadline far above that moment, even on a loaded machine.
			var body string
			if !testkit.Eventually(5*time.Second, func() bool {
				after := dialRaw(t, addr)
				after.send("GET /fast HTTP/1.1\r\nHost: x\r\n\r\n")
				resp, body = after.readResponse("GET")
				if resp.StatusCode == 200 && body == "fast" {
					return true
				}
				if resp.StatusCode != 503 {
					t.Fatalf("after the pool drained: %d %q", resp.StatusCode, body)
				}
				return false
			}) {
				t.Fatalf("after the pool drained: %d %q", resp.StatusCode, body)
			}
		})
	}
}

// A client that sends its next request the moment it has read a response
// never finds the pool full, however small the pool: a request's slot is
// given back when its handler returns, before its response is handed off.
// With the slot given back after the write, WithWorkers(1) answered 503
// to such a client within a few hundred requests.
func TestSmallPoolServesSequentialClient(t *testing.T) {
	app := gwist.New(gwist.WithWorkers(1), gwist.WithLogger(discardLogger()))
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "ok") })
	r := dialRaw(t, startApp(t, app))
	for i := range 5000 {
		r.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		if resp, body := r.readResponse("GET"); resp.StatusCode != 200 {
			t.Fatalf("request %d: %d %q", i, resp.StatusCode, body)
		}
	}
}
