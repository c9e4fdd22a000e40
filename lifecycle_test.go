package gwist_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

// tickInterval is engine/config.go's timer sweep period: the engine's
// coarse clock advances once per tick and timers are checked once per tick.
const tickInterval = 250 * time.Millisecond

func TestHeaderReadTimeoutSendsRequestTimeout(t *testing.T) {
	const timeout = time.Second
	app := gwist.New(gwist.WithHeaderReadTimeout(timeout))
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "x") })
	addr := startApp(t, app)
	r := dialRaw(t, addr)
	start := time.Now()
	r.send("GET / HTTP/1.1\r\nHost: x\r\n") // never finishes the head
	resp, _ := r.readResponse("GET")
	if resp.StatusCode != 408 {
		t.Fatalf("status %d, want 408", resp.StatusCode)
	}
	r.expectClosed()
	// The deadline is the coarse clock at the first byte plus the timeout,
	// and that clock lags real time by up to one tick, so the code
	// guarantees only timeout - tickInterval; a further tick of margin
	// covers a tick the runtime delivers late on a loaded machine (which
	// keeps the clock stale longer). Asserting the timeout itself, or
	// anything within one tick of it, could fail on correct code.
	if el, least := time.Since(start), timeout-2*tickInterval; el < least {
		t.Fatalf("timed out after %v, before %v (timeout %v less two sweeps)", el, least, timeout)
	}
}

func TestIdleTimeoutClosesKeepAlive(t *testing.T) {
	app := gwist.New(gwist.WithIdleTimeout(300 * time.Millisecond))
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "x") })
	addr := startApp(t, app)
	r := dialRaw(t, addr)
	r.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, _ := r.readResponse("GET"); resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	r.expectClosed()
}

func TestBodyReadTimeout(t *testing.T) {
	app := gwist.New(gwist.WithBodyReadTimeout(300 * time.Millisecond))
	app.POST("/", func(c *gwist.Ctx) error { return c.String(200, "x") })
	addr := startApp(t, app)
	r := dialRaw(t, addr)
	r.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
	if resp, _ := r.readResponse("POST"); resp.StatusCode != 408 {
		t.Fatalf("status %d, want 408", resp.StatusCode)
	}
	r.expectClosed()
}

func TestContextCancelledWhenClientGoes(t *testing.T) {
	cancelled := make(chan error, 1)
	started := make(chan struct{})
	app := gwist.New()
	app.GET("/wait", func(c *gwist.Ctx) error {
		close(started)
		select {
		case <-c.Context().Done():
			cancelled <- c.Context().Err()
		case <-time.After(5 * time.Second):
			cancelled <- nil
		}
		return nil
	})
	addr := startApp(t, app)
	r := dialRaw(t, addr)
	r.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
	<-started // close only once the handler runs: before, there is no context to cancel
	r.c.Close()
	if err := <-cancelled; err == nil {
		t.Fatal("context not cancelled after the client closed")
	}
}

func TestGracefulShutdownFinishesInFlight(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	releaseAll := func() { releaseOnce.Do(func() { close(release) }) }
	defer releaseAll()
	app := gwist.New()
	app.GET("/slow", func(c *gwist.Ctx) error {
		close(started)
		<-release // finishes only once the drain is under way
		return c.String(200, "finished")
	})
	app.GET("/", func(c *gwist.Ctx) error { return c.String(200, "x") })
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	idle := dialRaw(t, addr.String()) // an idle keep-alive connection
	idle.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	idle.readResponse("GET")

	var wg sync.WaitGroup
	var body string
	var status int
	wg.Add(1)
	go func() {
		defer wg.Done()
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get("http://" + addr.String() + "/slow")
		if err != nil {
			t.Errorf("in-flight request failed: %v", err)
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		status, body = resp.StatusCode, string(b)
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- app.Shutdown(ctx) }()
	// The idle connection closing shows the drain has begun; only then may
	// the in-flight handler finish, so it is certainly in flight during it.
	idle.expectClosed()
	releaseAll()
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	wg.Wait()
	if status != 200 || body != "finished" {
		t.Fatalf("in-flight request got %d %q", status, body)
	}
	if _, err := http.Get("http://" + addr.String() + "/"); err == nil {
		t.Fatal("server still accepts after Shutdown")
	}
}

func TestShutdownDeadlineForcesClose(t *testing.T) {
	started := make(chan struct{})
	app := gwist.New()
	app.GET("/hang", func(c *gwist.Ctx) error {
		close(started)
		<-c.Context().Done()
		return nil
	})
	addr, err := app.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := dialRaw(t, addr.String())
	r.send("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
	<-started // in flight: otherwise Shutdown may find an idle connection and succeed
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	err = app.Shutdown(ctx)
	var se *gwist.ShutdownError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &se) || se.Cut != 1 {
		t.Fatalf("Shutdown = %v, want a ShutdownError (1 cut) wrapping deadline exceeded", err)
	}
	r.expectClosed()
}

func TestListenReturnsErrServerClosed(t *testing.T) {
	app := gwist.New()
	errc := make(chan error, 1)
	go func() { errc <- app.Listen("127.0.0.1:0") }()
	testkit.Eventually(5*time.Second, func() bool { return len(app.Addrs()) > 0 })
	if err := app.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != gwist.ErrServerClosed {
		t.Fatalf("Listen = %v", err)
	}
}

func TestInboundFloodIsCut(t *testing.T) {
	app := gwist.New(gwist.WithMaxPipelined(4))
	block := make(chan struct{})
	app.GET("/b", func(c *gwist.Ctx) error { <-block; return nil })
	addr := startApp(t, app)
	defer close(block)
	r := dialRaw(t, addr)
	req := strings.Repeat("GET /b HTTP/1.1\r\nHost: x\r\n\r\n", 1000)
	// The server stops parsing after 4 in flight and closes the connection
	// once the unparsed backlog passes its cap; writes then fail.
	var werr error
	for i := 0; i < 200 && werr == nil; i++ {
		_, werr = io.WriteString(r.c, req)
	}
	if werr == nil {
		t.Fatal("server kept accepting an unbounded pipelined flood")
	}
}
