package tlsstate

import "time"

// Timings are the moments in one connection's life that tlsstate records.
// A zero time means the moment has not happened.
type Timings struct {
	AcceptedAt      time.Time // NewConn
	FirstByteAt     time.Time // first ciphertext byte fed
	HelloAt         time.Time // ClientHello complete
	StartedAt       time.Time // handshake goroutine picked the connection up
	EstablishedAt   time.Time // handshake done
	FirstResponseAt time.Time // set by MarkFirstResponse
	// Lookup is the time the handshake spent in the server's certificate
	// lookups (GetConfigForClient, GetCertificate), which the handshake
	// timeout does not count.
	Lookup time.Duration
}

// Handshake is the time from the first ciphertext byte to established, or
// 0 if the handshake has not finished.
func (t Timings) Handshake() time.Duration { return since(t.FirstByteAt, t.EstablishedAt) }

// QueueWait is the time the complete ClientHello waited for a handshake
// goroutine, or 0.
func (t Timings) QueueWait() time.Duration { return since(t.HelloAt, t.StartedAt) }

// ResponseDelay is the time from established to the first response
// written, or 0.
func (t Timings) ResponseDelay() time.Duration { return since(t.EstablishedAt, t.FirstResponseAt) }

func since(from, to time.Time) time.Duration {
	if from.IsZero() || to.IsZero() {
		return 0
	}
	return to.Sub(from)
}

// stamps is how a Conn keeps its Timings: the accept time in full and each
// later moment as its offset from it (0: not yet). That is 64 bytes instead
// of the 144 of six time.Time values, and every idle connection holds one
// (72 with the lookup time).
type stamps struct {
	accepted                                              time.Time
	firstByte, hello, started, established, firstResponse time.Duration
	lookup                                                time.Duration // a sum, not a moment
}

// mark records t as the moment *d unless that moment is already recorded.
func (s *stamps) mark(d *time.Duration, t time.Time) {
	if *d == 0 {
		*d = max(t.Sub(s.accepted), 1) // 1 ns, so that a recorded moment is never 0
	}
}

// at returns the moment recorded as d, or the zero time.
func (s *stamps) at(d time.Duration) time.Time {
	if d == 0 {
		return time.Time{}
	}
	return s.accepted.Add(d)
}

func (s *stamps) timings() Timings {
	return Timings{
		AcceptedAt:      s.accepted,
		FirstByteAt:     s.at(s.firstByte),
		HelloAt:         s.at(s.hello),
		StartedAt:       s.at(s.started),
		EstablishedAt:   s.at(s.established),
		FirstResponseAt: s.at(s.firstResponse),
		Lookup:          s.lookup,
	}
}
