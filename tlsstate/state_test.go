package tlsstate

import (
	"testing"
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
