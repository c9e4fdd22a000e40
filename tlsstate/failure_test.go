package tlsstate

import (
	"bytes"
	"crypto/tls"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// notifier returns a notify func and a channel it signals.
func notifier() (func(), chan struct{}) {
	ch := make(chan struct{}, 1)
	return func() {
		select {
		case ch <- struct{}{}:
		default:
		}
	}, ch
}

func waitNotify(t *testing.T, ch chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("no notify")
	}
}

func hello13(t testing.TB) []byte {
	cc := clientTLS(t)
	cc.MinVersion = tls.VersionTLS13
	return captureHello(t, cc)
}

func TestTimeoutSilentClient(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newServer(t, Config{HandshakeTimeout: 30 * time.Millisecond})
	notify, ch := notifier()
	c := s.NewConn(notify)
	defer c.Release()
	waitNotify(t, ch)
	if c.State() != AwaitingHello {
		t.Fatalf("state %v before Process", c.State())
	}
	if _, err := c.Process(nil); reasonOf(err) != ReasonTimeout {
		t.Fatalf("Process = %v, want timeout", err)
	}
	if c.State() != Failed || reasonOf(c.Err()) != ReasonTimeout {
		t.Fatalf("state %v err %v", c.State(), c.Err())
	}
	if err := c.Feed([]byte{0x16}); reasonOf(err) != ReasonTimeout {
		t.Fatalf("Feed after timeout = %v", err)
	}
	c.Release()
	if st := s.Stats(); st.Failed["timeout"] != 1 || st.Failed["client_gone"] != 0 || st.Abandoned != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestTimeoutHalfHello(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := hello13(t)
	s := newServer(t, Config{HandshakeTimeout: 50 * time.Millisecond})
	notify, ch := notifier()
	c := s.NewConn(notify)
	defer c.Release()
	if err := c.Feed(h[:len(h)/2]); err != nil {
		t.Fatal(err)
	}
	if c.State() != AwaitingHello || s.Stats().InFlight != 0 {
		t.Fatalf("half hello: state %v, in flight %d", c.State(), s.Stats().InFlight)
	}
	waitNotify(t, ch)
	if _, err := c.Process(nil); reasonOf(err) != ReasonTimeout {
		t.Fatalf("Process = %v, want timeout", err)
	}
}

func TestTimeoutAfterServerFlight(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := hello13(t)
	s := newServer(t, Config{HandshakeTimeout: 200 * time.Millisecond})
	notify, ch := notifier()
	c := s.NewConn(notify)
	defer c.Release()
	if err := c.Feed(h); err != nil {
		t.Fatal(err)
	}
	if c.State() != Handshaking {
		t.Fatalf("state %v after full hello", c.State())
	}
	waitNotify(t, ch)
	flight := c.AppendOutbound(nil)
	if len(flight) == 0 || flight[0] != recordTypeHandshake {
		t.Fatalf("server flight %x", flight[:min(len(flight), 8)])
	}
	if st := s.Stats(); st.InFlight != 1 {
		t.Fatalf("InFlight = %d", st.InFlight)
	}
	// The client never answers.
	waitNotify(t, ch)
	if _, err := c.Process(nil); reasonOf(err) != ReasonTimeout {
		t.Fatalf("Process = %v, want timeout", err)
	}
	waitFor(t, "handshake goroutine exit", func() bool { return s.Stats().InFlight == 0 })
	if st := s.Stats(); st.Failed["timeout"] != 1 {
		t.Fatalf("Failed = %v", st.Failed)
	}
}

func TestGarbage(t *testing.T) {
	defer goleak.VerifyNone(t)
	cases := []struct {
		name  string
		in    []byte
		want  Reason
		alert bool
	}{
		{"zeros", make([]byte, 64), ReasonNotTLS, false},
		{"binary", []byte{0x00, 0xff, 0x13, 0x37}, ReasonNotTLS, false},
		{"sslv2 hello", []byte{0x80, 0x2e, 0x01, 0x00, 0x02}, ReasonNotTLS, false},
		{"application data first", []byte{0x17, 0x03, 0x03, 0x00, 0x10}, ReasonNotTLS, false},
		{"bad version", []byte{0x16, 0x07, 0x01, 0x00, 0x10}, ReasonBadRecord, true},
		{"empty record", []byte{0x16, 0x03, 0x01, 0x00, 0x00}, ReasonBadRecord, true},
		{"oversized record", []byte{0x16, 0x03, 0x01, 0x48, 0x01}, ReasonBadRecord, true},
		{"server hello", []byte{0x16, 0x03, 0x03, 0x00, 0x04, 0x02, 0x00, 0x00, 0x00}, ReasonBadRecord, true},
		{"alert inside hello", []byte{0x16, 0x03, 0x01, 0x00, 0x02, 0x01, 0x00, 0x15, 0x03, 0x01}, ReasonBadRecord, true},
		{"huge hello", []byte{0x16, 0x03, 0x01, 0x00, 0x04, 0x01, 0x01, 0x00, 0x00}, ReasonOverflow, true},
	}
	s := newServer(t, Config{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := s.NewConn(nil)
			defer c.Release()
			err := c.Feed(tc.in)
			if reasonOf(err) != tc.want {
				t.Fatalf("Feed = %v, want %v", err, tc.want)
			}
			if c.State() != Failed {
				t.Fatalf("state %v", c.State())
			}
			out := c.AppendOutbound(nil)
			if tc.alert && !bytes.Equal(out, alertDecodeError) {
				t.Fatalf("outbound %x, want decode_error alert", out)
			}
			if !tc.alert && len(out) != 0 {
				t.Fatalf("outbound %q, want none", out)
			}
		})
	}
	// A well-framed ClientHello with a garbage body reaches crypto/tls,
	// which rejects it; the goroutine exits.
	body := bytes.Repeat([]byte{0xAB}, 60)
	rec := append([]byte{0x16, 0x03, 0x01, 0x00, 64, 0x01, 0x00, 0x00, 60}, body...)
	notify, ch := notifier()
	c := s.NewConn(notify)
	defer c.Release()
	if err := c.Feed(rec); err != nil {
		t.Fatal(err)
	}
	waitNotify(t, ch)
	if _, err := c.Process(nil); reasonOf(err) != ReasonHandshakeError {
		t.Fatalf("garbage hello body: %v", err)
	}
	if !c.HasOutbound() {
		t.Error("no alert queued for a garbage hello body")
	}
	waitFor(t, "goroutine exit", func() bool { return s.Stats().InFlight == 0 })
}

func TestPlainHTTPToTLSPort(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	// Fails on the very first byte.
	s := newServer(t, Config{})
	c := s.NewConn(nil)
	if err := c.Feed([]byte("G")); reasonOf(err) != ReasonNotTLS {
		t.Fatalf("Feed(\"G\") = %v", err)
	}
	if out := string(c.AppendOutbound(nil)); !strings.HasPrefix(out, "HTTP/1.0 400 ") {
		t.Fatalf("outbound %q", out)
	}
	c.Release()

	// Over a socket, a plain HTTP client gets a readable 400 and EOF.
	e := newEnv(t, Config{})
	raw, l := e.dialRaw()
	if _, err := raw.Write([]byte("GET / HTTP/1.1\r\nHost: a.example\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	resp, err := io.ReadAll(raw)
	if err != nil {
		t.Fatal(err)
	}
	head, body, ok := strings.Cut(string(resp), "\r\n\r\n")
	if !ok || !strings.HasPrefix(head, "HTTP/1.0 400 Bad Request") || !strings.Contains(head, "Content-Length: 51") || len(body) != 51 {
		t.Fatalf("response %q", resp)
	}
	if r := reasonOf(l.wait(t)); r != ReasonNotTLS {
		t.Fatalf("reason %v", r)
	}
	if st := e.s.Stats(); st.Failed["not_tls"] != 1 {
		t.Fatalf("Failed = %v", st.Failed)
	}
}

func TestReleaseMidHandshake(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := hello13(t)
	s := newServer(t, Config{})
	var released, late atomic.Bool
	ch := make(chan struct{}, 1)
	c := s.NewConn(func() {
		if released.Load() {
			late.Store(true)
		}
		select {
		case ch <- struct{}{}:
		default:
		}
	})
	if err := c.Feed(h); err != nil {
		t.Fatal(err)
	}
	waitNotify(t, ch)
	if !c.HasOutbound() || s.Stats().InFlight != 1 {
		t.Fatal("no server flight / goroutine")
	}
	// The client vanishes: the engine sees EOF and releases.
	c.Release()
	released.Store(true)
	c.Release() // idempotent
	waitFor(t, "goroutine exit", func() bool { return s.Stats().InFlight == 0 })
	if late.Load() {
		t.Error("notify called after Release returned")
	}
	if c.State() != Closed || c.HasOutbound() || c.Room() != 0 {
		t.Errorf("after Release: state %v, outbound %v, room %d", c.State(), c.HasOutbound(), c.Room())
	}
	if _, err := c.Process(nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Process after Release = %v", err)
	}
	if err := c.Feed([]byte{1}); !errors.Is(err, ErrClosed) {
		t.Errorf("Feed after Release = %v", err)
	}
	if err := c.Write([]byte{1}); !errors.Is(err, ErrClosed) {
		t.Errorf("Write after Release = %v", err)
	}
	// A connection that never sent a byte is abandoned, not client_gone.
	s.NewConn(nil).Release()
	if st := s.Stats(); st.Failed["client_gone"] != 1 || st.Abandoned != 1 {
		t.Errorf("client_gone %d abandoned %d", st.Failed["client_gone"], st.Abandoned)
	}
}

func TestAbortHandshake(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := hello13(t)
	s := newServer(t, Config{})
	notify, ch := notifier()
	c := s.NewConn(notify)
	defer c.Release()
	c.Feed(h)
	waitNotify(t, ch)
	c.CloseNotify() // server shutting down mid-handshake
	if c.State() != Closed {
		t.Fatalf("state %v", c.State())
	}
	if _, err := c.Process(nil); !errors.Is(err, ErrClosed) {
		t.Fatalf("Process = %v", err)
	}
	waitFor(t, "goroutine exit", func() bool { return s.Stats().InFlight == 0 })
	if st := s.Stats(); st.Failed["aborted"] != 1 {
		t.Fatalf("Failed = %v", st.Failed)
	}
}

func TestLimiterQueuesWithoutGoroutines(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := hello13(t)
	// The first two handshakes hold their slots (their certificate lookup
	// blocks), so the third and fourth connections must queue.
	hold := make(chan struct{})
	var unhold sync.Once
	defer unhold.Do(func() { close(hold) })
	s := newServer(t, Config{TLS: blockingCertTLS(t, hold), MaxHandshakes: 2, MaxQueued: 2, HandshakeTimeout: time.Minute,
		SlowLookup: time.Hour})
	base := runtime.NumGoroutine()
	var conns []*Conn
	var chans []chan struct{}
	for i := 0; i < 5; i++ {
		notify, ch := notifier()
		c := s.NewConn(notify)
		defer c.Release()
		conns, chans = append(conns, c), append(chans, ch)
	}
	for i, c := range conns[:4] {
		if err := c.Feed(h); err != nil {
			t.Fatalf("conn %d: %v", i, err)
		}
	}
	if err := conns[4].Feed(h); reasonOf(err) != ReasonLimiterRefused {
		t.Fatalf("fifth conn: %v, want limiter_refused", err)
	}
	if st := s.Stats(); st.InFlight != 2 || st.Computing != 2 || st.Queued != 2 || st.Failed["limiter_refused"] != 1 {
		t.Fatalf("InFlight %d Queued %d Failed %v", st.InFlight, st.Queued, st.Failed)
	}
	if n := runtime.NumGoroutine() - base; n > 2 {
		t.Fatalf("%d new goroutines for 2 running + 2 queued handshakes", n)
	}
	if conns[2].HasOutbound() || conns[3].HasOutbound() {
		t.Fatal("a queued conn produced output")
	}
	// A queued conn that is released leaves the queue at once.
	conns[3].Release()
	if st := s.Stats(); st.Queued != 1 {
		t.Fatalf("Queued %d after releasing a queued conn", st.Queued)
	}
	// Slots freed (the first two park for their clients) serve the queue.
	unhold.Do(func() { close(hold) })
	waitNotify(t, chans[0])
	waitNotify(t, chans[1])
	waitNotify(t, chans[2])
	if !conns[2].HasOutbound() {
		t.Fatal("queued conn not served after a slot freed")
	}
	if st := s.Stats(); st.Queued != 0 {
		t.Fatalf("after the slots freed: Queued %d", st.Queued)
	}
	if tm := conns[2].Timings(); tm.QueueWait() <= 0 {
		t.Errorf("QueueWait = %v", tm.QueueWait())
	}
	for _, c := range conns {
		c.Release()
	}
	waitFor(t, "workers exit", func() bool { return s.Stats().InFlight == 0 })
}

func TestQueuedConnTimesOut(t *testing.T) {
	defer goleak.VerifyNone(t)
	h := hello13(t)
	hold := make(chan struct{})
	defer close(hold)
	s := newServer(t, Config{TLS: blockingCertTLS(t, hold), MaxHandshakes: 1, HandshakeTimeout: 100 * time.Millisecond,
		SlowLookup: time.Hour})
	n0, _ := notifier()
	first := s.NewConn(n0)
	defer first.Release()
	first.Feed(h)
	notify, ch := notifier()
	queued := s.NewConn(notify)
	defer queued.Release()
	queued.Feed(h)
	if st := s.Stats(); st.Queued != 1 {
		t.Fatalf("Queued = %d", st.Queued)
	}
	// The first holds the only slot throughout: the queued conn times out
	// in the queue.
	waitNotify(t, ch)
	if _, err := queued.Process(nil); reasonOf(err) != ReasonTimeout {
		t.Fatalf("queued conn: %v, want timeout", err)
	}
	if st := s.Stats(); st.Queued != 0 {
		t.Fatalf("timed-out conn still queued")
	}
}

// A thousand connections that send nothing (and some that send half a
// hello) hold no goroutine, so a real client still completes at once;
// afterwards they all time out.
func TestThousandStalledHandshakes(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	const silent, halves = 1000, 50
	h := hello13(t)
	e := newEnv(t, Config{MaxHandshakes: 4, HandshakeTimeout: time.Second})
	base := runtime.NumGoroutine()
	var fired atomic.Int64
	stalled := make([]*Conn, 0, silent+halves)
	for i := 0; i < silent+halves; i++ {
		c := e.s.NewConn(func() { fired.Add(1) })
		if i >= silent {
			if err := c.Feed(h[:len(h)/2]); err != nil {
				t.Fatal(err)
			}
		}
		stalled = append(stalled, c)
	}
	defer func() {
		for _, c := range stalled {
			c.Release()
		}
	}()
	if n := runtime.NumGoroutine() - base; n > 5 {
		t.Fatalf("%d goroutines for stalled connections", n)
	}
	cli, l, err := e.dial(clientTLS(t))
	if err != nil {
		t.Fatal(err)
	}
	echo(t, cli, "still served")
	cli.Close()
	l.wait(t)
	if fired.Load() != 0 {
		t.Fatal("stalled connections timed out before the normal client finished; test too slow")
	}
	waitFor(t, "all timeouts", func() bool { return fired.Load() == silent+halves })
	for _, c := range stalled {
		if _, err := c.Process(nil); reasonOf(err) != ReasonTimeout {
			t.Fatalf("stalled conn: %v", err)
		}
	}
	if st := e.s.Stats(); st.Failed["timeout"] != silent+halves || st.Full != 1 || st.InFlight != 0 {
		t.Fatalf("stats: timeout %d full %d in flight %d", st.Failed["timeout"], st.Full, st.InFlight)
	}
}

// Connections that send a whole ClientHello and then go silent park their
// goroutines without holding limiter slots, so with a single slot a real
// client still completes next to them.
func TestSilentAfterHelloDoesNotStarve(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) })
	const stalledN = 20
	h := hello13(t)
	e := newEnv(t, Config{MaxHandshakes: 1, MaxParked: stalledN, HandshakeTimeout: 5 * time.Second})
	var stalled []*Conn
	for i := 0; i < stalledN; i++ {
		notify, ch := notifier()
		c := e.s.NewConn(notify)
		if err := c.Feed(h); err != nil {
			t.Fatal(err)
		}
		waitNotify(t, ch) // its server flight is out; it now waits for us
		stalled = append(stalled, c)
	}
	defer func() {
		for _, c := range stalled {
			c.Release()
		}
	}()
	if st := e.s.Stats(); st.InFlight != stalledN || st.Computing != 0 || st.Queued != 0 {
		t.Fatalf("in flight %d computing %d queued %d", st.InFlight, st.Computing, st.Queued)
	}
	start := time.Now()
	cli, l, err := e.dial(clientTLS(t))
	if err != nil {
		t.Fatal(err)
	}
	echo(t, cli, "still served")
	cli.Close()
	l.wait(t)
	if el := time.Since(start); el > 3*time.Second {
		t.Fatalf("real client took %v next to parked handshakes", el)
	}
	for _, c := range stalled {
		c.Release()
	}
	waitFor(t, "parked goroutines exit", func() bool { return e.s.Stats().InFlight == 0 })
	if st := e.s.Stats(); st.Computing != 0 {
		t.Fatalf("slots leaked: computing %d", st.Computing)
	}
}

func TestTruncatedRecords(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newServer(t, Config{})
	cli, c, m := handshakeByHand(t, s, clientTLS(t))
	msg := "split across many reads"
	cli.Write([]byte(msg))
	cli.Write([]byte("!"))
	raw := m.take()
	var got []byte
	for i := range raw {
		if err := c.Feed(raw[i : i+1]); err != nil {
			t.Fatalf("byte %d: %v", i, err)
		}
		var err error
		got, err = c.Process(got)
		if err != nil {
			t.Fatalf("byte %d: %v", i, err)
		}
		if i < len(raw)-1 && len(got) > len(msg) {
			t.Fatalf("plaintext before the record was complete")
		}
	}
	if string(got) != msg+"!" {
		t.Fatalf("got %q", got)
	}
	if c.State() != Established {
		t.Fatalf("state %v", c.State())
	}
}

func TestBadRecordAfterEstablished(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newServer(t, Config{})
	cli, c, m := handshakeByHand(t, s, clientTLS(t))
	cli.Write([]byte("tampered"))
	raw := m.take()
	raw[len(raw)-1] ^= 0x01 // break the AEAD tag
	if err := c.Feed(raw); err != nil {
		t.Fatal(err)
	}
	plain, err := c.Process(nil)
	if reasonOf(err) != ReasonBadRecord || len(plain) != 0 {
		t.Fatalf("Process = %q, %v; want bad_record", plain, err)
	}
	if c.State() != Failed || !c.HasOutbound() {
		t.Fatalf("state %v, alert queued %v", c.State(), c.HasOutbound())
	}
	m.give(c.AppendOutbound(nil))
	if _, err := cli.Read(make([]byte, 1)); err == nil || !strings.Contains(err.Error(), "bad record MAC") {
		t.Fatalf("client read %v, want bad record MAC alert", err)
	}
	if _, err := c.Process(nil); reasonOf(err) != ReasonBadRecord {
		t.Fatalf("second Process = %v", err)
	}
	if st := s.Stats(); st.ConnErrors["bad_record"] != 1 || st.Failed["bad_record"] != 0 {
		t.Fatalf("ConnErrors %v Failed %v", st.ConnErrors, st.Failed)
	}
}

func TestBufferBound(t *testing.T) {
	defer goleak.VerifyNone(t)
	s := newServer(t, Config{})
	_, c, _ := handshakeByHand(t, s, clientTLS(t))
	if c.Room() != MaxBuffered {
		t.Fatalf("Room = %d", c.Room())
	}
	big := make([]byte, MaxBuffered+1)
	if err := c.Feed(big); !errors.Is(err, ErrBufferFull) {
		t.Fatalf("Feed(too much) = %v", err)
	}
	if c.State() != Established || c.Room() != MaxBuffered {
		t.Fatalf("ErrBufferFull changed state: %v room %d", c.State(), c.Room())
	}
	if err := c.Feed(big[:100]); err != nil {
		t.Fatal(err)
	}
	if c.Room() != MaxBuffered-100 {
		t.Fatalf("Room = %d after 100 bytes", c.Room())
	}

	// A ClientHello fragmented into 1-byte records cannot fit: it fails
	// once the buffer is full rather than waiting for the timeout.
	c2 := s.NewConn(nil)
	defer c2.Release()
	frag := []byte{0x16, 0x03, 0x01, 0x00, 0x01}
	var err error
	hdr := []byte{0x01, 0x00, 0x40, 0x00} // ClientHello, 16 KiB
	for i := 0; err == nil && i < MaxBuffered; i++ {
		b := byte(0)
		if i < len(hdr) {
			b = hdr[i]
		}
		rec := append(frag[:5:5], b)
		n := min(len(rec), c2.Room())
		err = c2.Feed(rec[:n])
	}
	if reasonOf(err) != ReasonOverflow {
		t.Fatalf("fragmented hello: %v, want overflow", err)
	}
	if !bytes.Equal(c2.AppendOutbound(nil), alertDecodeError) {
		t.Fatal("no alert for the oversized hello")
	}
}
