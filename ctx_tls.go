package gwist

import "crypto/tls"

// TLS returns the TLS state of the request's connection, or nil for a
// plaintext request: Version, CipherSuite, ServerName (SNI),
// NegotiatedProtocol (ALPN), PeerCertificates and VerifiedChains (client
// certificates, with tls.Config.ClientAuth), DidResume. The first call of a
// request copies the state from the connection (one allocation, about
// 300 bytes, and a few hundred ns); later calls of the same request return
// the same value. Requests that never call it pay nothing. Treat it as
// read-only (its certificate slices are the connection's). Under
// App.ServeHTTP it is the http.Request's TLS field. It is nil once the
// client has gone.
func (c *Ctx) TLS() *tls.ConnectionState {
	if !c.tlsRead {
		c.tlsRead = true
		c.tlsState = c.ex.TLS()
	}
	return c.tlsState
}
