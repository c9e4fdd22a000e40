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
	// DefaultSlowLookup is the default Config.SlowLookup: well above a
	// certificate lookup served from memory or a local disk (microseconds
	// to a millisecond), well below one that waits on the network (an ACME
	// order takes seconds).
	DefaultSlowLookup = 20 * time.Millisecond
	// SlowLookupsPerHandshake times MaxHandshakes is the default
	// MaxSlowLookups.
	SlowLookupsPerHandshake = 4
)

// Config configures a Server.
type Config struct {
	// TLS is honoured as given (Certificates, GetCertificate,
	// GetConfigForClient, session tickets, ClientAuth...) and cloned by
	// NewServer. MinVersion defaults to TLS 1.2 when 0; NextProtos
	// defaults to ["http/1.1"] when empty. Configs returned by
	// GetConfigForClient are used as they are, but for their
	// GetCertificate, which gets the same treatment as the Config's own
	// lookups (see SlowLookup; a Config that has one is cloned for that).
	TLS *tls.Config
	// HandshakeTimeout bounds the time from NewConn until the handshake
	// is done, including time spent queued, but not the time the server
	// spends in its own certificate lookups (the TLS Config's
	// GetConfigForClient and GetCertificate, which may run an ACME order):
	// it bounds the waits for the client. On expiry the connection fails
	// with ReasonTimeout. Default DefaultHandshakeTimeout.
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
	// SlowLookup is how long a certificate lookup (GetConfigForClient,
	// GetCertificate) may keep its handshake's slot: past it the lookup is
	// slow, and its goroutine gives the slot up until the lookup returns,
	// as it does while waiting for its client. Default DefaultSlowLookup.
	SlowLookup time.Duration
	// MaxSlowLookups bounds the handshake goroutines inside a slow lookup
	// at once. While that many are, a handshake reaching a lookup fails at
	// once with ReasonLookupRefused instead of calling it, so that a burst
	// of names whose certificates must first be obtained costs at most
	// this many waiting handshakes and never the slots of the others. A
	// lookup already running when the bound is reached finishes, so up to
	// MaxHandshakes more may be slow at once. Default
	// SlowLookupsPerHandshake × MaxHandshakes; values below 1 mean the
	// default.
	MaxSlowLookups int
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
	if c.SlowLookup <= 0 {
		c.SlowLookup = DefaultSlowLookup
	}
	if c.MaxSlowLookups <= 0 {
		c.MaxSlowLookups = SlowLookupsPerHandshake * c.MaxHandshakes
	}
	switch {
	case c.MaxQueued == 0:
		c.MaxQueued = QueuePerHandshake * c.MaxHandshakes
	case c.MaxQueued < 0:
		c.MaxQueued = 0
	}
	return c, nil
}
