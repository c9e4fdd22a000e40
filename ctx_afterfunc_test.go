package gwist_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// Contexts derived from a request's (context.WithCancel, WithTimeout; the
// net/http bridge's, once per wrapped request) take its cancellation from
// the engine without a goroutine each, and still end when the client
// leaves.
func TestDerivedContextCostsNoGoroutine(t *testing.T) {
	app := gwist.New()
	grew := make(chan int, 1)
	ended := make(chan error, 1)
	app.GET("/", func(c *gwist.Ctx) error {
		before := runtime.NumGoroutine()
		var last context.Context
		for range 50 {
			ctx, cancel := context.WithCancel(c.Context())
			defer cancel()
			last = ctx
		}
		grew <- runtime.NumGoroutine() - before
		if err := c.Flush(); err != nil { // the client sees the head and leaves
			return err
		}
		select {
		case <-last.Done():
			ended <- last.Err()
		case <-time.After(5 * time.Second):
			ended <- nil
		}
		return nil
	})
	addr := startApp(t, app)
	conn := dialRaw(t, addr)
	conn.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if n := <-grew; n >= 25 {
		t.Errorf("50 derived contexts started %d goroutines", n)
	}
	if _, err := conn.br.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	conn.c.Close()
	if err := <-ended; err != context.Canceled {
		t.Errorf("the derived context after the client left: %v, want context.Canceled", err)
	}
}
