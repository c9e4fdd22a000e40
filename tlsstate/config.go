package tlsstate

import (
	"crypto/tls"
	"errors"
	"runtime"
	"time"
)

// Defaults applied by NewServer to zero Config fields.
const (
	// DefaultHandshakeTimeout bounds a handshake from NewConn to
	// established.
	DefaultHandshakeTimeout = 10 * time.Second
	// HandshakesPerCPU times GOMAXPROCS is the default MaxHandshakes.
	// A handshake goroutine spends a few hundred microseconds of CPU and
	// otherwise waits one round trip for the client's second flight, so
	// 64 per CPU keeps the CPUs busy across slow clients while bounding
	// memory.
	HandshakesPerCPU = 64
	// QueuePerHandshake times MaxHandshakes is the default MaxQueued.
	QueuePerHandshake = 16
	// ParkedPerHandshake times MaxHandshakes is the default MaxParked. A
	// server flight costs a few hundred microseconds of CPU, so one CPU
	// parks at most a few thousand handshakes a second: with 1,024 parked
	// per CPU a parked handshake survives a few hundred milliseconds of
	// newer ones, longer than a live client's round trip.
	ParkedPerHandshake = 16
)

// Config configures a Server.
type Config struct {
	// TLS is honoured as given (Certificates, GetCertificate,
	// GetConfigForClient, session tickets, ClientAuth...) and cloned by
	// NewServer. MinVersion defaults to TLS 1.2 when 0; NextProtos
	// defaults to ["http/1.1"] when empty. Configs returned by
	// GetConfigForClient are used as they are.
	TLS *tls.Config
	// HandshakeTimeout bounds the time from NewConn until the handshake
	// is done, including time spent queued. On expiry the connection
	// fails with ReasonTimeout. Default DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// MaxHandshakes bounds the handshakes computing at once (a goroutine
	// waiting for its client's next flight does not count).
	// Default HandshakesPerCPU × GOMAXPROCS.
	MaxHandshakes int
	// MaxParked bounds the handshake goroutines parked waiting for their
	// client's next flight. When one more parks, the oldest parked
	// handshake fails with ReasonEvicted, so clients that send a
	// ClientHello and go silent hold at most this many goroutines and
	// never keep new handshakes out. A parked handshake holds about
	// 26 KB (17 KB of heap, mostly crypto/tls state, and an 8 KB stack).
	// Default ParkedPerHandshake × MaxHandshakes; values below 1 mean the
	// default.
	MaxParked int
	// MaxQueued bounds the connections waiting for a handshake goroutine;
	// they hold their ClientHello but no goroutine. Past it a connection
	// fails with ReasonLimiterRefused. Default QueuePerHandshake ×
	// MaxHandshakes; negative means no queue.
	MaxQueued int
}

func (cfg *Config) withDefaults() (Config, error) {
	c := *cfg
	if c.TLS == nil {
		return c, errors.New("tlsstate: Config.TLS is nil")
	}
	if len(c.TLS.Certificates) == 0 && c.TLS.GetCertificate == nil && c.TLS.GetConfigForClient == nil {
		return c, errors.New("tlsstate: Config.TLS has no certificate source")
	}
	c.TLS = c.TLS.Clone()
	if c.TLS.MinVersion == 0 {
		c.TLS.MinVersion = tls.VersionTLS12
	}
	if len(c.TLS.NextProtos) == 0 {
		c.TLS.NextProtos = []string{"http/1.1"}
	}
	if c.HandshakeTimeout <= 0 {
		c.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if c.MaxHandshakes <= 0 {
		c.MaxHandshakes = HandshakesPerCPU * runtime.GOMAXPROCS(0)
	}
	if c.MaxParked <= 0 {
		c.MaxParked = ParkedPerHandshake * c.MaxHandshakes
	}
	switch {
	case c.MaxQueued == 0:
		c.MaxQueued = QueuePerHandshake * c.MaxHandshakes
	case c.MaxQueued < 0:
		c.MaxQueued = 0
	}
	return c, nil
}
