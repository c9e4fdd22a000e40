package gwist

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"time"

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
// TLS 1.2 and NextProtos to ["h2", "http/1.1"]. When CipherSuites is nil (in cfg
// or in a Config that GetConfigForClient returns), TLS 1.2 offers only
// ECDHE suites with AES-GCM or ChaCha20-Poly1305 (forward secrecy and
// AEAD; Go's own default adds CBC-SHA1 suites); a list you set is used as
// is. NextProtos is limited to the protocols gwist serves (http/1.1, and
// h2 unless WithHTTP2(false), offered first when NextProtos is empty), so a client
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

// The ALPN protocol names gwist serves: http/1.1, and h2 unless
// WithHTTP2(false).
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
