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
