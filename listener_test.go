package gwist_test

import (
	"errors"
	"syscall"
	"testing"

	"github.com/gwist/gwist"
)

// A second server on a port that is in use fails, as net/http does, instead
// of sharing the port through SO_REUSEPORT and splitting the traffic.
func TestSecondListenerOnSamePortFails(t *testing.T) {
	first := helloApp(gwist.WithLogger(discardLogger()))
	addr := startApp(t, first)
	second := helloApp(gwist.WithLogger(discardLogger()))
	if bound, err := second.Start(addr); err == nil {
		shutdownApp(t, second)
		t.Fatalf("second Start on %s succeeded (bound %s)", addr, bound)
	} else if !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("second Start: %v; want address already in use", err)
	}
}

// With ReusePort on both, a second server binds the port in use and the
// kernel spreads new connections over the two (the restart recipe); without
// it on the first, the second still fails.
func TestReusePortLetsASecondServerBind(t *testing.T) {
	first := gwist.New(gwist.WithLogger(discardLogger()))
	first.GET("/", func(c *gwist.Ctx) error { return c.String(200, "first") })
	bound, err := first.Start("127.0.0.1:0", gwist.ReusePort())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { shutdownApp(t, first) })
	addr := bound.String()

	second := gwist.New(gwist.WithLogger(discardLogger()))
	second.GET("/", func(c *gwist.Ctx) error { return c.String(200, "second") })
	if _, err := second.Start(addr, gwist.ReusePort()); err != nil {
		t.Fatalf("second Start with ReusePort: %v", err)
	}
	t.Cleanup(func() { shutdownApp(t, second) })

	seen := map[string]int{}
	for i := 0; i < 200 && len(seen) < 2; i++ {
		c := newClient(t) // a new connection each time: the kernel picks a socket per connection
		_, body := get(t, c, "http://"+addr+"/")
		seen[body]++
	}
	if seen["first"] == 0 || seen["second"] == 0 {
		t.Fatalf("connections reached %v; want both servers", seen)
	}

	plain := gwist.New(gwist.WithLogger(discardLogger()))
	plainAddr := startApp(t, plain)
	third := gwist.New(gwist.WithLogger(discardLogger()))
	if _, err := third.Start(plainAddr, gwist.ReusePort()); !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("ReusePort beside a listener without it: %v; want address already in use", err)
	}
}
