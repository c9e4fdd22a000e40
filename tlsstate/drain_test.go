package tlsstate

import (
	"crypto/tls"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// A client that closes right after its Finished (pebble's TLS-ALPN-01
// validator does) completed its handshake. When the loop releases the
// connection before the handshake goroutine has read that Finished, the
// goroutine still reads it and the handshake counts as completed, not as
// client_gone. A Finished cut short by the close counts as client_gone,
// and so does a whole one past the bound of MaxHandshakes released
// connections that keep their bytes.
//
// The goroutine is held away from the bytes deterministically: the
// limiter has one slot, and a second handshake holds it in a certificate
// lookup while the first one's Finished is fed and the connection
// released.
func TestReleaseWithFinishedUnread(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cut      bool // feed the Finished less its last byte
		over     bool // a second released connection, past the bound of one
		full     uint64
		goneWant uint64
	}{
		{"whole Finished", false, false, 1, 1},
		{"cut Finished", true, false, 0, 2},
		{"past the bound", false, true, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Cleanup(func() { goleak.VerifyNone(t) })
			cfg, calls, unblock := gatedLookups(t)
			s := newServer(t, Config{TLS: cfg, MaxHandshakes: 1, SlowLookup: time.Minute})

			var released, late atomic.Bool
			fin, c := handshakeToClientFinished(t, s, func() {
				if released.Load() {
					late.Store(true)
				}
			})
			if tc.cut {
				fin = fin[:len(fin)-1]
			}
			var fin2 []byte
			var c2 *Conn
			if tc.over {
				fin2, c2 = handshakeToClientFinished(t, s, func() {})
			}

			// The second handshake takes the only slot and keeps it in its
			// lookup.
			holder := s.NewConn(nil)
			if err := holder.Feed(helloFor(t, "slow.example")); err != nil {
				t.Fatal(err)
			}
			lookups := int32(2)
			if tc.over {
				lookups = 3
			}
			waitFor(t, "the holder's lookup", func() bool { return calls.Load() == lookups && s.Stats().Computing == 1 })

			if err := c.Feed(fin); err != nil {
				t.Fatal(err)
			}
			c.Release() // the client closed right after its Finished
			released.Store(true)
			c.Release() // idempotent
			if c.State() != Closed || c.Room() != 0 {
				t.Errorf("after Release: state %v, room %d", c.State(), c.Room())
			}
			if err := c.Feed([]byte{1}); !errors.Is(err, ErrClosed) {
				t.Errorf("Feed after Release = %v", err)
			}
			if _, err := c.Process(nil); !errors.Is(err, ErrClosed) {
				t.Errorf("Process after Release = %v", err)
			}
			if tc.over {
				if err := c2.Feed(fin2); err != nil {
					t.Fatal(err)
				}
				c2.Release() // the bound is one: its bytes are dropped
			}

			unblock() // the holder sends its flight and parks: the slot is free
			waitFor(t, "the first handshake to end", func() bool {
				st := s.Stats()
				return st.Full+st.Failed["client_gone"] == tc.goneWant+tc.full-1
			})
			holder.Release() // its client never answers: client_gone
			waitFor(t, "the goroutines to exit", func() bool { return s.Stats().InFlight == 0 })
			st := s.Stats()
			if st.Full != tc.full || st.Failed["client_gone"] != tc.goneWant || st.ByVersion["TLS 1.3"] != tc.full {
				t.Errorf("full %d (want %d), client_gone %d (want %d), by version %v",
					st.Full, tc.full, st.Failed["client_gone"], tc.goneWant, st.ByVersion)
			}
			if late.Load() {
				t.Error("notify called after Release returned")
			}
			if c.HasOutbound() {
				t.Error("outbound bytes after Release")
			}
		})
	}
}

// handshakeToClientFinished runs a TLS 1.3 crypto/tls client against a new
// Conn of s over memory until the client's handshake returns, and gives
// back the client's last flight (its Finished) unfed.
func handshakeToClientFinished(t *testing.T, s *Server, notified func()) ([]byte, *Conn) {
	t.Helper()
	m := newMemConn()
	wrote := make(chan struct{}, 1)
	m.onWrite = func() {
		select {
		case wrote <- struct{}{}:
		default:
		}
	}
	notify, ch := notifier()
	c := s.NewConn(func() { notified(); notify() })
	t.Cleanup(func() { m.Close(); c.Release() })
	cli := tls.Client(m, &tls.Config{ServerName: "a.example", InsecureSkipVerify: true, MinVersion: tls.VersionTLS13})
	errc := make(chan error, 1)
	go func() { errc <- cli.Handshake() }()

	select {
	case <-wrote:
	case <-time.After(5 * time.Second):
		t.Fatal("no ClientHello")
	}
	if err := c.Feed(m.take()); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := c.Process(nil); err != nil {
			t.Fatalf("Process: %v", err)
		}
		m.give(c.AppendOutbound(nil))
		select {
		case err := <-errc:
			if err != nil {
				t.Fatalf("client handshake: %v", err)
			}
			fin := m.take()
			if len(fin) == 0 {
				t.Fatal("the client wrote no Finished")
			}
			return fin, c
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatalf("handshake stuck in %v", c.State())
		}
	}
}

// A handshake released while its goroutine waits for the client, with
// nothing to read, ends at once: its goroutine leaves without waiting for
// a slot (here the only one is held by a lookup) and counts client_gone.
func TestReleaseWhileWaitingLeavesWithoutSlot(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	cfg, calls, unblock := gatedLookups(t)
	s := newServer(t, Config{TLS: cfg, MaxHandshakes: 1, SlowLookup: time.Minute})
	_, c := handshakeToClientFinished(t, s, func() {})

	holder := s.NewConn(nil)
	if err := holder.Feed(helloFor(t, "slow.example")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the holder's lookup", func() bool { return calls.Load() == 2 && s.Stats().Computing == 1 })

	c.Release() // its client left without a Finished
	waitFor(t, "the released handshake's goroutine to leave", func() bool {
		st := s.Stats()
		return st.InFlight == 1 && st.Failed["client_gone"] == 1
	})
	unblock()
	holder.Release()
	waitFor(t, "the goroutines to exit", func() bool { return s.Stats().InFlight == 0 })
	if st := s.Stats(); st.Full != 0 || st.Failed["client_gone"] != 2 {
		t.Errorf("full %d, client_gone %d; want 0 and 2", st.Full, st.Failed["client_gone"])
	}
}
