package tlsstate

import (
	"crypto/tls"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// A handshake that finishes while the loop yields is not notified (the
// loop's own Process picks it up); the same finish outside Yield is.
func TestYieldHoldsBackNotification(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newServer(t, Config{HandshakeTimeout: time.Minute})
	for _, yield := range []bool{false, true} {
		var notified atomic.Int32
		c := s.NewConn(func() { notified.Add(1) })
		m := newMemConn()
		cli := tls.Client(m, clientTLS(t))
		errc := make(chan error, 1)
		go func() { errc <- cli.Handshake() }()

		var hello []byte
		waitFor(t, "ClientHello", func() bool { hello = append(hello, m.take()...); return len(hello) > 0 })
		if err := c.Feed(hello); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "server flight notified", func() bool { return notified.Load() > 0 })
		if _, err := c.Process(nil); err != nil {
			t.Fatal(err)
		}
		m.give(c.AppendOutbound(nil))
		if err := <-errc; err != nil {
			t.Fatalf("client handshake: %v", err)
		}

		before := notified.Load()
		if err := c.Feed(m.take()); err != nil { // the client's Finished
			t.Fatal(err)
		}
		finished := func() {
			waitFor(t, "handshake goroutine done", func() bool { return s.Stats().InFlight == 0 })
		}
		if yield {
			c.Yield(finished)
		} else {
			finished()
		}
		want := int32(1)
		if yield {
			want = 0
		}
		if got := notified.Load() - before; got != want {
			t.Errorf("yield %v: %d notifications for the finished handshake, want %d", yield, got, want)
		}
		if _, err := c.Process(nil); err != nil || c.State() != Established {
			t.Fatalf("yield %v: after Process: %v, %v", yield, c.State(), err)
		}
		_ = m.Close()
		c.Release()
	}
}
