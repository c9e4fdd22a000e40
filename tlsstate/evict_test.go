package tlsstate

import (
	"crypto/tls"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// blockingCertTLS is serverTLS with a certificate lookup that blocks until
// hold is closed. A handshake holds its limiter slot meanwhile only with a
// Config.SlowLookup longer than the test (otherwise the lookup turns slow
// and gives its slot up).
func blockingCertTLS(t testing.TB, hold <-chan struct{}) *tls.Config {
	cert := getPKI(t).a
	return &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		<-hold
		return &cert, nil
	}}
}

// Past MaxParked, parking a handshake evicts the oldest parked one: the
// goroutines held by silent clients stay bounded, new handshakes are
// neither queued nor refused, and a real client completes.
func TestParkedBoundEvictsOldest(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	const maxParked, silentN = 3, 8
	h := hello13(t)
	e := newEnv(t, Config{MaxHandshakes: 1, MaxParked: maxParked, HandshakeTimeout: time.Minute})
	var silent []*Conn
	var chans []chan struct{}
	defer func() {
		for _, c := range silent {
			c.Release()
		}
	}()
	for i := 0; i < silentN; i++ {
		notify, ch := notifier()
		c := e.s.NewConn(notify)
		silent, chans = append(silent, c), append(chans, ch)
		if err := c.Feed(h); err != nil {
			t.Fatalf("silent %d: %v", i, err)
		}
		waitNotify(t, ch) // its flight is out: it parks (or has parked)
	}
	waitFor(t, "evicted goroutines exit", func() bool { return e.s.Stats().InFlight == maxParked })
	for i, c := range silent {
		// The oldest were evicted; each was notified a second time.
		wantEvicted := i < silentN-maxParked
		if wantEvicted {
			waitNotify(t, chans[i])
		}
		_, err := c.Process(nil)
		if got := reasonOf(err) == ReasonEvicted; got != wantEvicted {
			t.Fatalf("silent %d of %d: %v; evicted want %v", i, silentN, err, wantEvicted)
		}
	}
	st := e.s.Stats()
	if st.Failed["evicted"] != silentN-maxParked || st.Failed["limiter_refused"] != 0 || st.Queued != 0 {
		t.Fatalf("stats: %+v", st)
	}
	cli, l, err := e.dial(clientTLS(t))
	if err != nil {
		t.Fatal(err)
	}
	echo(t, cli, "still served")
	cli.Close()
	l.wait(t)
	if st := e.s.Stats(); st.Full != 1 || st.Failed["evicted"] != silentN-maxParked+1 {
		// The real client parked once, which evicted one more silent one.
		t.Fatalf("after the real client: full %d evicted %d", st.Full, st.Failed["evicted"])
	}
	for _, c := range silent {
		c.Release()
	}
	waitFor(t, "parked goroutines exit", func() bool { return e.s.Stats().InFlight == 0 })
	if st := e.s.Stats(); st.Computing != 0 {
		t.Fatalf("slots leaked: computing %d", st.Computing)
	}
}
