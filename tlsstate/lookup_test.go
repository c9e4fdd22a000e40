package tlsstate

import (
	"crypto/tls"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// slowNamesTLS answers names starting with "slow" after wait returns (an
// ACME order, say) and the others at once, counting the calls.
func slowNamesTLS(t testing.TB, wait func(), calls *atomic.Int32) *tls.Config {
	cert := getPKI(t).a
	return &tls.Config{GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
		calls.Add(1)
		if strings.HasPrefix(h.ServerName, "slow") {
			wait()
		}
		return &cert, nil
	}}
}

// gatedLookups is slowNamesTLS whose slow lookups wait until open is
// called; the test's cleanup opens the gate (register goleak's check
// before calling it: cleanups run last first).
func gatedLookups(t testing.TB) (cfg *tls.Config, calls *atomic.Int32, open func()) {
	gate := make(chan struct{})
	var once sync.Once
	open = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(open)
	calls = new(atomic.Int32)
	return slowNamesTLS(t, func() { <-gate }, calls), calls, open
}

// helloFor is a TLS 1.3 ClientHello for name.
func helloFor(t testing.TB, name string) []byte {
	return captureHello(t, &tls.Config{ServerName: name, InsecureSkipVerify: true, MinVersion: tls.VersionTLS13})
}

// A certificate lookup four times as long as the handshake timeout does not
// fail the handshake: the timeout counts the waits for the client, not the
// server's own lookup, directly or through GetConfigForClient. The lookup's
// time is reported, and it was slow, so it gave its slot up meanwhile.
func TestSlowLookupOutlivesHandshakeTimeout(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	const timeout, lookupTime = 250 * time.Millisecond, time.Second
	var calls atomic.Int32
	sleep := func() { time.Sleep(lookupTime) }
	direct := slowNamesTLS(t, sleep, &calls)
	viaConfig := &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		sleep()
		return slowNamesTLS(t, sleep, &calls), nil
	}}
	for name, cfg := range map[string]*tls.Config{"GetCertificate": direct, "GetConfigForClient": viaConfig} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, Config{TLS: cfg, HandshakeTimeout: timeout})
			cli, l, err := e.dial(&tls.Config{ServerName: "slow.example", InsecureSkipVerify: true})
			if err != nil {
				t.Fatalf("handshake with a %v lookup under a %v timeout: %v", lookupTime, timeout, err)
			}
			echo(t, cli, "served")
			var tm Timings
			l.do(func(c *Conn) { tm = c.Timings() })
			cli.Close()
			l.wait(t)
			want := lookupTime
			if name == "GetConfigForClient" {
				want = 2 * lookupTime // both lookups sleep
			}
			if tm.Lookup < want || tm.Handshake() < want {
				t.Errorf("Timings: lookup %v, handshake %v; want both ≥ %v", tm.Lookup, tm.Handshake(), want)
			}
			st := e.s.Stats()
			if st.Full != 1 || st.Failed["timeout"] != 0 || st.SlowLookupsTotal == 0 || st.SlowLookups != 0 {
				t.Errorf("stats: full %d, timeouts %d, slow lookups %d (now %d)",
					st.Full, st.Failed["timeout"], st.SlowLookupsTotal, st.SlowLookups)
			}
		})
	}
}

// A client that stalls after a slow lookup is still cut: the rest of its
// handshake timeout runs once the lookup returns.
func TestStallAfterSlowLookupTimesOut(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	const timeout, lookupTime = 300 * time.Millisecond, 600 * time.Millisecond
	var calls atomic.Int32
	s := newServer(t, Config{TLS: slowNamesTLS(t, func() { time.Sleep(lookupTime) }, &calls), HandshakeTimeout: timeout})
	notify, ch := notifier()
	c := s.NewConn(notify)
	defer c.Release()
	start := time.Now()
	if err := c.Feed(helloFor(t, "slow.example")); err != nil {
		t.Fatal(err)
	}
	for c.State() != Failed {
		waitNotify(t, ch) // the server's flight, then the failure
		_, _ = c.Process(nil)
		c.AppendOutbound(nil)
	}
	took := time.Since(start)
	if reasonOf(c.Err()) != ReasonTimeout {
		t.Fatalf("silent client after the lookup: %v, want timeout", c.Err())
	}
	if took < lookupTime+timeout*2/3 || took > lookupTime+timeout+2*time.Second {
		t.Fatalf("timed out after %v; want about %v (lookup) + %v (timeout)", took, lookupTime, timeout)
	}
	waitFor(t, "the handshake goroutine to exit", func() bool { return s.Stats().InFlight == 0 })
}

// Slow lookups give their slots up: with one slot, two handshakes wait on
// slow lookups at once and a handshake whose lookup is quick completes
// meanwhile. At MaxSlowLookups a lookup is refused at once, without calling
// the application; the waiting ones then finish.
func TestSlowLookupsFreeSlotsAndAreBounded(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	const maxSlow = 3
	cfg, calls, unblock := gatedLookups(t)
	e := newEnv(t, Config{TLS: cfg, MaxHandshakes: 1,
		MaxSlowLookups: maxSlow, HandshakeTimeout: 5 * time.Second})
	type result struct {
		cli *tls.Conn
		err error
	}
	results := make(chan result, maxSlow)
	slowClient := func() {
		raw, _ := e.dialRaw()
		go func() {
			cli := tls.Client(raw, &tls.Config{ServerName: "slow.example", InsecureSkipVerify: true})
			results <- result{cli, cli.Handshake()}
		}()
	}
	for i := 0; i < maxSlow-1; i++ {
		slowClient()
	}
	waitFor(t, "two slow lookups", func() bool { return e.s.Stats().SlowLookups == maxSlow-1 })
	if st := e.s.Stats(); st.Computing != 0 || st.Queued != 0 {
		t.Fatalf("slow lookups hold slots: computing %d, queued %d", st.Computing, st.Queued)
	}

	start := time.Now()
	cli, l, err := e.dial(clientTLS(t))
	if err != nil {
		t.Fatalf("quick lookup next to %d slow ones on 1 slot: %v", maxSlow-1, err)
	}
	echo(t, cli, "quick")
	cli.Close()
	l.wait(t)
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("quick handshake took %v", d)
	}

	// With MaxSlowLookups waiting, the next lookup is refused unrun.
	slowClient()
	waitFor(t, "three slow lookups", func() bool { return e.s.Stats().SlowLookups == maxSlow })
	before := calls.Load()
	_, l, err = e.dial(clientTLS(t))
	if err == nil {
		t.Fatal("handshake at MaxSlowLookups succeeded")
	}
	if r := reasonOf(l.wait(t)); r != ReasonLookupRefused {
		t.Fatalf("reason %v, want lookup_refused", r)
	}
	if calls.Load() != before {
		t.Fatal("the refused lookup ran")
	}

	unblock()
	for i := 0; i < maxSlow; i++ {
		r := <-results
		if r.err != nil {
			t.Fatalf("slow handshake %d: %v", i, r.err)
		}
		echo(t, r.cli, "slow")
		r.cli.Close()
	}
	waitFor(t, "the goroutines to exit", func() bool { return e.s.Stats().InFlight == 0 })
	st := e.s.Stats()
	if st.Full != maxSlow+1 || st.Failed["lookup_refused"] != 1 || st.SlowLookups != 0 ||
		st.SlowLookupsTotal != maxSlow || st.Computing != 0 {
		t.Fatalf("stats: full %d, refused %d, slow now %d, slow total %d, computing %d",
			st.Full, st.Failed["lookup_refused"], st.SlowLookups, st.SlowLookupsTotal, st.Computing)
	}
}

// A client that leaves during a slow lookup frees its connection at once;
// the goroutine leaves when the lookup returns, without a slot, and counts
// the handshake as client_gone.
func TestReleaseDuringSlowLookup(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	cfg, _, unblock := gatedLookups(t)
	s := newServer(t, Config{TLS: cfg, MaxHandshakes: 1})
	c := s.NewConn(nil)
	if err := c.Feed(helloFor(t, "slow.example")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a slow lookup", func() bool { return s.Stats().SlowLookups == 1 })
	c.Release()
	if c.State() != Closed || c.Room() != 0 {
		t.Fatalf("after Release: state %v, room %d", c.State(), c.Room())
	}
	unblock()
	waitFor(t, "the goroutine to exit", func() bool { return s.Stats().InFlight == 0 })
	if st := s.Stats(); st.Computing != 0 || st.SlowLookups != 0 || st.Full != 0 || st.Failed["client_gone"] != 1 {
		t.Fatalf("after release: computing %d, slow %d, full %d, failed %v", st.Computing, st.SlowLookups, st.Full, st.Failed)
	}
}

// A lookup is given the handshake's context (ClientHelloInfo.Context), and
// it ends when the connection goes away mid-lookup, so a lookup that waits
// on the network (autocert's ACME order) can give up. Configs without
// lookups hand crypto/tls a background context instead (handshake.go).
func TestLookupContextEndsWithConnection(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	entered := make(chan struct{})
	ended := make(chan error, 1)
	cfg := &tls.Config{GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
		close(entered)
		select {
		case <-h.Context().Done():
			ended <- nil
		case <-time.After(10 * time.Second):
			ended <- errors.New("the lookup's context was not done 10 s after its client left")
		}
		return nil, errors.New("no certificate")
	}}
	e := newEnv(t, Config{TLS: cfg})
	raw, l := e.dialRaw()
	if _, err := raw.Write(helloFor(t, "gone.example")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the lookup was never called")
	}
	raw.Close()
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
	l.wait(t)
}
