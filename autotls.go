package gwist

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"

	"github.com/gwist/gwist/engine"
)

// CertManager obtains certificates from an ACME certificate authority (Let's
// Encrypt, or any RFC 8555 CA) and renews them. *autocert.Manager, from
// golang.org/x/crypto/acme/autocert, satisfies it: gwist takes the
// interface so that its core does not depend on x/crypto.
type CertManager interface {
	// TLSConfig returns a Config whose GetCertificate returns a name's
	// current certificate (obtaining the first one during the name's first
	// handshake) and answers TLS-ALPN-01 validations, with "acme-tls/1" in
	// NextProtos.
	TLSConfig() *tls.Config
	// HTTPHandler returns a handler that answers HTTP-01 validations
	// (GET /.well-known/acme-challenge/TOKEN) and passes other requests to
	// fallback, or redirects them to HTTPS when fallback is nil.
	HTTPHandler(fallback http.Handler) http.Handler
}

// StartAutoTLS serves HTTPS on addr in the background with certificates
// from m, and returns the bound address. It is StartTLS with m.TLSConfig():
// a name's first handshake obtains its certificate (while it waits, see
// WithMaxSlowCertLookups; the handshake timeout does not count that time),
// the CA's TLS-ALPN-01 validations are answered on this listener, and
// renewed certificates are served to new connections as soon as m has them
// (connections already open keep theirs). The CA must reach addr on port
// 443 for TLS-ALPN-01; start StartACMEHTTP on port 80 too for HTTP-01 (and
// a redirect from HTTP). See docs/https.md, "Automatic HTTPS".
func (a *App) StartAutoTLS(addr string, m CertManager, opts ...ListenOption) (net.Addr, error) {
	if m == nil {
		return nil, errors.New("gwist: StartAutoTLS needs a CertManager")
	}
	cfg := m.TLSConfig()
	if cfg == nil || (cfg.GetCertificate == nil && cfg.GetConfigForClient == nil && len(cfg.Certificates) == 0) {
		return nil, errors.New("gwist: StartAutoTLS: the CertManager's TLSConfig has no certificate source")
	}
	return a.StartTLS(addr, cfg, opts...)
}

// ListenAutoTLS is StartAutoTLS, then it waits until Shutdown and returns
// ErrServerClosed.
func (a *App) ListenAutoTLS(addr string, m CertManager, opts ...ListenOption) error {
	if _, err := a.StartAutoTLS(addr, m, opts...); err != nil {
		return err
	}
	return a.waitLast()
}

// StartACMEHTTP serves plaintext HTTP on addr in the background for m, and
// returns the bound address: it answers the CA's HTTP-01 validations and
// redirects every other GET or HEAD to the same URL over HTTPS (302, on
// the default port; other methods get a 400), as m.HTTPHandler(nil) does.
// The App's routes and middleware are not involved: an authentication or
// CORS middleware cannot get in the way of a validation. The CA reaches
// HTTP-01 on port 80. To serve the App in plaintext on the same port as
// well, register the challenge path on it instead:
//
//	app.GET("/.well-known/acme-challenge/*token", gwist.WrapHandler(m.HTTPHandler(nil)))
func (a *App) StartACMEHTTP(addr string, m CertManager, opts ...ListenOption) (net.Addr, error) {
	if m == nil {
		return nil, errors.New("gwist: StartACMEHTTP needs a CertManager")
	}
	h := m.HTTPHandler(nil)
	if h == nil {
		return nil, errors.New("gwist: StartACMEHTTP: the CertManager's HTTPHandler is nil")
	}
	chain := WrapHandler(h)
	return a.start(addr, nil, func(ex *engine.Exchange) { a.serveWith(ex, chain) }, opts)
}
