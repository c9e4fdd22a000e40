package tlsstate

import (
	"crypto/tls"
	"testing"
	"time"
)

func TestStateAndReasonNames(t *testing.T) {
	want := map[State]string{AwaitingHello: "awaiting_hello", Handshaking: "handshaking",
		Established: "established", Closing: "closing", Closed: "closed", Failed: "failed", State(99): "unknown"}
	for s, name := range want {
		if s.String() != name {
			t.Errorf("State(%d).String() = %q, want %q", s, s.String(), name)
		}
	}
	seen := map[string]bool{}
	for r := ReasonNone; r < numReasons; r++ {
		n := r.String()
		if n == "unknown" || seen[n] {
			t.Errorf("Reason %d has name %q", r, n)
		}
		seen[n] = true
	}
	if Reason(200).String() != "unknown" {
		t.Error("out-of-range Reason")
	}
	e := &Error{Reason: ReasonTimeout}
	if e.Error() != "tlsstate: timeout" {
		t.Errorf("Error() = %q", e.Error())
	}
}

func TestNewServerDefaults(t *testing.T) {
	if _, err := NewServer(Config{}); err == nil {
		t.Error("nil TLS config accepted")
	}
	if _, err := NewServer(Config{TLS: &tls.Config{}}); err == nil {
		t.Error("config without certificates accepted")
	}
	in := serverTLS(t)
	s, err := NewServer(Config{TLS: in})
	if err != nil {
		t.Fatal(err)
	}
	if s.tls == in || s.tls.MinVersion != tls.VersionTLS12 || len(s.tls.NextProtos) != 1 || s.tls.NextProtos[0] != "http/1.1" {
		t.Errorf("defaults not applied to a clone: %+v", s.tls)
	}
	if in.MinVersion != 0 || in.NextProtos != nil {
		t.Error("caller's config was modified")
	}
	if s.timeout != DefaultHandshakeTimeout || s.maxHS < HandshakesPerCPU || s.maxQueue != QueuePerHandshake*s.maxHS {
		t.Errorf("timeout %v maxHS %d maxQueue %d", s.timeout, s.maxHS, s.maxQueue)
	}
	s, _ = NewServer(Config{TLS: serverTLS(t), MaxQueued: -1, MaxHandshakes: 3})
	if s.maxQueue != 0 || s.maxHS != 3 {
		t.Errorf("maxHS %d maxQueue %d", s.maxHS, s.maxQueue)
	}
}

// Every split of a real ClientHello is recognised as complete exactly when
// its last byte arrives.
func TestHelloScannerSplits(t *testing.T) {
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		cc := clientTLS(t)
		cc.MaxVersion = v
		h := captureHello(t, cc)
		for cut := 0; cut <= len(h); cut++ {
			var sc helloScanner
			st1, _, err := sc.scan(h[:cut])
			st2, _, err2 := sc.scan(h)
			if err != nil || err2 != nil {
				t.Fatalf("cut %d: %v %v", cut, err, err2)
			}
			if (st1 == helloComplete) != (cut == len(h)) || st2 != helloComplete {
				t.Fatalf("cut %d of %d: %v then %v", cut, len(h), st1, st2)
			}
		}
	}
}

// A ClientHello spread over several records, byte-fragmented the way a
// hostile or odd client might send it, is reassembled.
func TestHelloScannerFragmentedRecords(t *testing.T) {
	h := hello13(t)
	msg := h[recordHeaderLen:] // single-record hello: its payload
	var frag []byte
	for i := 0; i < len(msg); i += 7 {
		p := msg[i:min(i+7, len(msg))]
		frag = append(frag, 0x16, 0x03, 0x01, 0, byte(len(p)))
		frag = append(frag, p...)
	}
	var sc helloScanner
	for i := 1; i < len(frag); i++ {
		if st, _, err := sc.scan(frag[:i]); st != helloPartial {
			t.Fatalf("prefix %d: %v %v", i, st, err)
		}
	}
	if st, _, err := sc.scan(frag); st != helloComplete {
		t.Fatalf("whole: %v %v", st, err)
	}
	// crypto/tls accepts the fragmented hello too.
	s := newServer(t, Config{})
	notify, ch := notifier()
	c := s.NewConn(notify)
	defer c.Release()
	if err := c.Feed(frag); err != nil || c.State() != Handshaking {
		t.Fatalf("Feed: %v, state %v", err, c.State())
	}
	waitNotify(t, ch)
	if !c.HasOutbound() {
		t.Fatal("no ServerHello for a fragmented ClientHello")
	}
}

func TestTimingsAndResponseStats(t *testing.T) {
	s := newServer(t, Config{})
	_, c, _ := handshakeByHand(t, s, clientTLS(t))
	tm := c.Timings()
	if tm.AcceptedAt.IsZero() || tm.FirstByteAt.Before(tm.AcceptedAt) || tm.HelloAt.Before(tm.FirstByteAt) ||
		tm.StartedAt.Before(tm.HelloAt) || tm.EstablishedAt.Before(tm.StartedAt) {
		t.Fatalf("timings out of order: %+v", tm)
	}
	if tm.ResponseDelay() != 0 {
		t.Fatal("ResponseDelay before any response")
	}
	at := tm.EstablishedAt.Add(3 * time.Millisecond)
	c.MarkFirstResponse(at)
	c.MarkFirstResponse(at.Add(time.Hour)) // ignored
	if got := c.Timings().ResponseDelay(); got != 3*time.Millisecond {
		t.Fatalf("ResponseDelay = %v", got)
	}
	st := s.Stats()
	if st.Responses != 1 || st.ResponseDelay != 3*time.Millisecond || st.ResponseMax != 3*time.Millisecond {
		t.Fatalf("response stats %+v", st)
	}
	if st.HandshakeTime <= 0 || st.HandshakeMax != st.HandshakeTime {
		t.Fatalf("handshake time %v max %v", st.HandshakeTime, st.HandshakeMax)
	}
	if (Timings{}).Handshake() != 0 || (Timings{}).QueueWait() != 0 {
		t.Fatal("zero Timings gave durations")
	}
}

func TestWriteBeforeEstablished(t *testing.T) {
	s := newServer(t, Config{})
	c := s.NewConn(nil)
	defer c.Release()
	if err := c.Write([]byte("x")); err != ErrNotEstablished {
		t.Fatalf("Write = %v", err)
	}
	if in := c.Info(); in.Version != 0 || in.PeerCertificates != nil {
		t.Fatal("Info before established")
	}
}
