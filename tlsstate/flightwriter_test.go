package tlsstate

import (
	"bytes"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// With a flight writer the handshake goroutine sends its flight itself and
// does not wake the loop; what the writer could not send is queued for the
// loop, in order, and notified.
func TestFlightWriter(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := hello13(t)
	s := newServer(t, Config{HandshakeTimeout: time.Minute})
	for _, partial := range []bool{false, true} {
		var notified atomic.Int32
		c := s.NewConn(func() { notified.Add(1) })
		got := make(chan []byte, 1)
		c.SetFlightWriter(func(p []byte) []byte {
			got <- bytes.Clone(p)
			if partial {
				return p[len(p)/2:]
			}
			return nil
		})
		if err := c.Feed(h); err != nil {
			t.Fatal(err)
		}
		var flight []byte
		select {
		case flight = <-got:
		case <-time.After(5 * time.Second):
			t.Fatal("flight writer not called")
		}
		if len(flight) < 100 || flight[0] != recordTypeHandshake {
			t.Fatalf("flight % x...", flight[:min(len(flight), 8)])
		}
		if !partial {
			// Nothing for the loop: no notification, nothing queued.
			waitFor(t, "goroutine parks", func() bool { return s.Stats().Computing == 0 })
			if n := notified.Load(); n != 0 || c.HasOutbound() {
				t.Fatalf("full write: %d notifications, outbound %v", n, c.HasOutbound())
			}
		} else {
			waitFor(t, "rest notified", func() bool { return notified.Load() > 0 })
			if rest := c.AppendOutbound(nil); !bytes.Equal(rest, flight[len(flight)/2:]) {
				t.Fatalf("queued %d bytes, want the %d the writer left", len(rest), len(flight)-len(flight)/2)
			}
		}
		c.Release()
	}
	waitFor(t, "goroutines exit", func() bool { return s.Stats().InFlight == 0 })
}
