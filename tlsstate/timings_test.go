package tlsstate

import (
	"testing"
	"time"
)

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
