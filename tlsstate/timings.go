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
