package gwist

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/http2"
	"github.com/gwist/gwist/tlsstate"
)

// WithQuickAck turns the TCP_QUICKACK re-arm around TLS handshakes on or
// off (default on). With it, a client that leaves Nagle on (ab, many
// OpenSSL clients) gets its first response right after the handshake
// instead of after the peer's ~40 ms delayed ACK. Off is for A/B runs.
func WithQuickAck(on bool) Option { return func(c *config) { c.engine.DisableQuickAck = !on } }

// WithTLSHandshakeTimeout bounds a TLS handshake (default 10 s; close).
// It bounds the waits for the client: the time the server spends in its
// own certificate lookups (tls.Config's GetConfigForClient and
// GetCertificate, where autocert runs an ACME order) is not counted.
func WithTLSHandshakeTimeout(d time.Duration) Option {
	return func(c *config) {
		if c.timeout("WithTLSHandshakeTimeout", d, "10s") {
			c.tls.HandshakeTimeout = d
		}
	}
}

// WithMaxSlowCertLookups bounds the TLS handshakes waiting at once on a slow
// certificate lookup: a GetConfigForClient or GetCertificate call that has
// run longer than 20 ms (tlsstate.DefaultSlowLookup), such as autocert's
// first handshake for a name, which obtains the certificate. Such a
// handshake gives its WithMaxHandshakes slot up while it waits, so slow
// lookups never keep other handshakes out. While n of them wait, a new
// handshake that reaches a lookup fails at once (its client gets an
// internal_error alert; Stats().TLS.Failed["lookup_refused"]) rather than
// adding to them. Default 4 × WithMaxHandshakes (256 per CPU).
func WithMaxSlowCertLookups(n int) Option {
	return func(c *config) {
		if c.count("WithMaxSlowCertLookups", int64(n), "4 × WithMaxHandshakes") {
			c.tls.MaxSlowLookups = n
		}
	}
}

// WithMaxHandshakes bounds the TLS handshakes running at once (default 64
// per CPU). Further connections wait, without a goroutine, in a bounded
// queue (16 × this), and are refused beyond it.
func WithMaxHandshakes(n int) Option {
	return func(c *config) {
		if c.count("WithMaxHandshakes", int64(n), "64 per CPU") {
			c.tls.MaxHandshakes = n
		}
	}
}

// StartTLS serves HTTPS on addr with cfg in the background and returns the
// bound address. cfg is honoured as given (Certificates, GetCertificate for
// SNI or hot reload, session tickets, ClientAuth); MinVersion defaults to
// TLS 1.2 and NextProtos to ["http/1.1"]. When CipherSuites is nil (in cfg
// or in a Config that GetConfigForClient returns), TLS 1.2 offers only
// ECDHE suites with AES-GCM or ChaCha20-Poly1305 (forward secrecy and
// AEAD; Go's own default adds CBC-SHA1 suites); a list you set is used as
// is. NextProtos is limited to the protocols gwist serves (http/1.1, and
// h2 with WithHTTP2, offered first when NextProtos is empty), so a client
// is never promised one it will not get; "acme-tls/1", when listed, is
// kept (after them): its TLS-ALPN-01 validations (RFC 8737) are answered
// by the handshake's certificate alone, and the connection is then closed
// (see StartAutoTLS).
// cfg itself is not modified. A plaintext and a TLS listener can run in
// one App.
func (a *App) StartTLS(addr string, cfg *tls.Config, opts ...ListenOption) (net.Addr, error) {
	if err := a.optionsErr(); err != nil {
		return nil, err
	}
	if cfg == nil {
		return nil, errors.New("gwist: StartTLS needs a *tls.Config")
	}
	tc := a.cfg.tls
	spoken := http1Only
	if a.cfg.engine.HTTP2 {
		spoken = h2First
	}
	tc.TLS = withServerDefaults(cfg, spoken)
	ts, err := tlsstate.NewServer(tc)
	if err != nil {
		return nil, err
	}
	return a.start(addr, ts, nil, opts)
}

// defaultCipherSuites are the TLS 1.2 suites offered when the Config sets
// none: ECDHE key exchange (forward secrecy) with an AEAD cipher. TLS 1.3
// suites are not configurable and are all AEAD already. crypto/tls picks
// among them in its own order (AES-GCM first when both sides have AES
// hardware) and drops any that FIPS 140 mode forbids.
var defaultCipherSuites = []uint16{
	tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	tls.TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
}

// The ALPN protocol names gwist serves: http/1.1, and h2 with WithHTTP2.
// NextProtos is filtered to them, so that a client is never told "h2" by a
// server that would then answer it in HTTP/1.1.
var (
	http1Only = []string{"http/1.1"}
	h2First   = []string{"h2", "http/1.1"}
)

// tlsLayerProtocols are the ALPN protocols the TLS layer answers by itself,
// with the handshake alone: the ACME TLS-ALPN-01 challenge, whose
// certificate is the answer (the connection is then closed). They are
// offered when the application lists them, after the HTTP protocols.
var tlsLayerProtocols = []string{tlsstate.ProtoACMETLS}

// withServerDefaults returns a clone of cfg with gwist's defaults: the
// default cipher suites when it sets none, and NextProtos limited to what
// gwist answers (see servedProtos; when cfg offers nothing, all of spoken,
// h2 first). A GetConfigForClient callback is wrapped so that the Configs it
// returns get the same.
func withServerDefaults(cfg *tls.Config, spokenProtocols []string) *tls.Config {
	cfg = cfg.Clone()
	if len(cfg.NextProtos) == 0 {
		cfg.NextProtos = spokenProtocols
	}
	applyServerDefaults(cfg, spokenProtocols)
	if get := cfg.GetConfigForClient; get != nil {
		cfg.GetConfigForClient = func(h *tls.ClientHelloInfo) (*tls.Config, error) {
			c, err := get(h)
			if c == nil || err != nil || (c.CipherSuites != nil && alreadyServed(c.NextProtos, spokenProtocols)) {
				return c, err
			}
			// Clone is documented safe on a Config in use; explicit
			// session ticket keys carry over (otherwise crypto/tls uses
			// the outer Config's, as it would without the clone).
			c = c.Clone()
			applyServerDefaults(c, spokenProtocols)
			return c, nil
		}
	}
	return cfg
}

func applyServerDefaults(c *tls.Config, spokenProtocols []string) {
	if c.CipherSuites == nil {
		c.CipherSuites = defaultCipherSuites
	}
	c.NextProtos = servedProtos(c.NextProtos, spokenProtocols)
}

// servedProtos is what ALPN offers for the application's protos: the ones
// gwist speaks, in the application's order (all of spoken if it lists
// none of them), then those the TLS layer answers (tlsLayerProtocols) that
// it lists. Others are dropped. Since crypto/tls picks by the server's
// order, a client gets a TLS-layer protocol only if it offers no HTTP one.
// An empty protos stays empty (no ALPN). protos itself is not modified.
func servedProtos(protos, spokenProtocols []string) []string {
	if len(protos) == 0 {
		return protos
	}
	var httpProtos, tlsLayer []string
	for _, p := range protos {
		switch {
		case slices.Contains(spokenProtocols, p):
			httpProtos = append(httpProtos, p)
		case slices.Contains(tlsLayerProtocols, p):
			tlsLayer = append(tlsLayer, p)
		}
	}
	if httpProtos == nil {
		httpProtos = spokenProtocols // none of the asked ones: offer what is spoken
	}
	if tlsLayer == nil {
		return httpProtos
	}
	return append(slices.Clip(httpProtos), tlsLayer...)
}

// alreadyServed reports whether servedProtos would return protos as they
// are, without allocating: a Config that GetConfigForClient returns each
// time is then not cloned each time.
func alreadyServed(protos, spokenProtocols []string) bool {
	sawHTTP, sawTLSLayer := false, false
	for _, p := range protos {
		switch {
		case slices.Contains(spokenProtocols, p):
			if sawTLSLayer {
				return false
			}
			sawHTTP = true
		case slices.Contains(tlsLayerProtocols, p):
			sawTLSLayer = true
		default:
			return false
		}
	}
	return sawHTTP || !sawTLSLayer
}

// ServeTLS serves HTTPS on addr with cfg until Shutdown, then returns
// ErrServerClosed.
func (a *App) ServeTLS(addr string, cfg *tls.Config, opts ...ListenOption) error {
	if _, err := a.StartTLS(addr, cfg, opts...); err != nil {
		return err
	}
	return a.waitLast()
}

// ListenTLS serves HTTPS on addr with the PEM certificate and key files
// until Shutdown, then returns ErrServerClosed.
func (a *App) ListenTLS(addr, certFile, keyFile string, opts ...ListenOption) error {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return fmt.Errorf("gwist: loading certificate: %w", err)
	}
	return a.ServeTLS(addr, &tls.Config{Certificates: []tls.Certificate{cert}}, opts...)
}

// Stats is a snapshot of an App's counters.
type Stats struct {
	// Conns is the number of open connections over all listeners.
	Conns int64
	// MaxConns is the cap on open connections (WithMaxConns).
	MaxConns int
	// RefusedConns counts connections closed at once, unserved: beyond
	// MaxConns, or while descriptors ran out.
	RefusedConns uint64
	// AcceptErrors counts failed accepts (EMFILE, ENFILE, ENOBUFS, …).
	AcceptErrors uint64
	// Handlers is the number of handlers running on the worker pool and
	// counted in its bound (WithWorkers); Streams the number streaming a
	// response (Flush, SSE), which have left the bound.
	Handlers, Streams int
	// Feeds is the number of SSEFeed streams open (no goroutine each).
	Feeds int64
	// Queued is the number of batches of requests (those of one connection
	// read together; usually one request) waiting for a worker, and
	// Rejected counts the batches answered with 503 because the pool was
	// full (WithWorkers).
	Queued   int
	Rejected uint64
	// Listeners has each listener's open connections, in the order the
	// listeners were started.
	Listeners []ListenerStats
	// WebSockets is the number of WebSocket connections open (no
	// goroutine each).
	WebSockets int64
	// HTTP2Conns is the number of open connections speaking HTTP/2, and
	// HTTP2 counts their streams opened, reset by the client and by the
	// server, and the GOAWAYs sent by reason.
	HTTP2Conns int64
	HTTP2      http2.Stats
	// HTTP2Streams is the number of HTTP/2 streams in progress (request
	// received, response not yet written).
	HTTP2Streams int64
	// Backpressure sums what the read pause and the write timeout did:
	// the most unparsed input a paused connection held (PeakInbound, the
	// largest over the listeners), reads gnet let in while reading was
	// paused, connections closed over WithMaxInboundBytes, and connections
	// closed by WithWriteTimeout; and the most bytes a streamed response
	// had queued (PeakStreamQueued) and a streamed request body had
	// buffered for its handler (PeakBodyBuffered), each the largest over
	// the listeners.
	Backpressure engine.PipeStats
	// Proxy counts what the ProxyProtocol listeners did with their
	// connections' headers: accepted with a client address, accepted
	// without one (LOCAL), and each reason for a close (Proxy.Errors() is
	// their sum).
	Proxy engine.ProxyStats
	// ClientGoneErrors counts errors that handlers returned to
	// DefaultErrorHandler after their request's context was cancelled
	// (client gone or forced shutdown); their log lines are rate-limited.
	ClientGoneErrors uint64
	// TLS sums the TLS listeners' handshake counters and timings: full
	// and resumed handshakes, failures by reason, by version and by ALPN,
	// handshake time and the time from established to first response.
	TLS tlsstate.Stats
}

// ListenerStats is one listener's share of Stats.
type ListenerStats struct {
	Addr net.Addr
	// TLS reports an HTTPS listener (StartTLS).
	TLS bool
	// Conns is the number of its open connections (a TLS one counts from
	// its accept, handshake included); HTTP2Conns those of them speaking
	// HTTP/2.
	Conns, HTTP2Conns int64
}

// Stats returns the App's counters.
func (a *App) Stats() Stats {
	a.mu.Lock()
	servers := append([]*engine.Server(nil), a.servers...)
	workers := a.workers
	a.mu.Unlock()
	var st Stats
	st.HTTP2.GoAwaySent = map[string]uint64{}
	st.ClientGoneErrors = a.goneErrs.count.Load()
	st.TLS = tlsstate.Stats{Failed: map[string]uint64{}, ConnErrors: map[string]uint64{},
		ByVersion: map[string]uint64{}, ByALPN: map[string]uint64{}}
	st.MaxConns = a.connLimit().Max()
	if workers != nil {
		st.Streams = workers.Streams()
		st.Handlers = workers.Running() - st.Streams
		st.Queued, st.Rejected = workers.Queued(), workers.Rejected()
	}
	st.Listeners = make([]ListenerStats, 0, len(servers))
	for _, s := range servers {
		ls := ListenerStats{Addr: s.Addr(), TLS: s.TLS() != nil, Conns: s.ActiveConns(), HTTP2Conns: s.HTTP2Conns()}
		st.Listeners = append(st.Listeners, ls)
		st.Conns += ls.Conns
		st.Feeds += s.DetachedResponses()
		st.WebSockets += s.WebSocketConns()
		st.HTTP2Conns += ls.HTTP2Conns
		st.HTTP2.Add(s.HTTP2Stats())
		st.HTTP2Streams += s.HTTP2Streams()
		st.RefusedConns += s.RefusedConns()
		st.AcceptErrors += s.AcceptErrors()
		addPipeStats(&st.Backpressure, s.PipeStats())
		st.Proxy.Add(s.ProxyStats())
		if ts := s.TLS(); ts != nil {
			addTLSStats(&st.TLS, ts.Stats())
		}
	}
	return st
}

func addPipeStats(dst *engine.PipeStats, p engine.PipeStats) {
	dst.PeakInbound = max(dst.PeakInbound, p.PeakInbound)
	dst.ReadRearms += p.ReadRearms
	dst.InboundCapped += p.InboundCapped
	dst.WriteTimeouts += p.WriteTimeouts
	dst.PeakStreamQueued = max(dst.PeakStreamQueued, p.PeakStreamQueued)
	dst.PeakBodyBuffered = max(dst.PeakBodyBuffered, p.PeakBodyBuffered)
	dst.BodyReadTimeouts += p.BodyReadTimeouts
	dst.ShareWaits += p.ShareWaits
	dst.PingFloods += p.PingFloods
	dst.MemoryReleases += p.MemoryReleases
}

func addTLSStats(dst *tlsstate.Stats, s tlsstate.Stats) {
	dst.Full += s.Full
	dst.Resumed += s.Resumed
	dst.Abandoned += s.Abandoned
	dst.InFlight += s.InFlight
	dst.Queued += s.Queued
	dst.Computing += s.Computing
	dst.SlowLookups += s.SlowLookups
	dst.SlowLookupsTotal += s.SlowLookupsTotal
	dst.HandshakeTime += s.HandshakeTime
	dst.HandshakeMax = max(dst.HandshakeMax, s.HandshakeMax)
	dst.Responses += s.Responses
	dst.ResponseDelay += s.ResponseDelay
	dst.ResponseMax = max(dst.ResponseMax, s.ResponseMax)
	dst.Phases.Add(s.Phases)
	for _, m := range [][2]map[string]uint64{{dst.Failed, s.Failed}, {dst.ConnErrors, s.ConnErrors},
		{dst.ByVersion, s.ByVersion}, {dst.ByALPN, s.ByALPN}} {
		for k, v := range m[1] {
			m[0][k] += v
		}
	}
}
