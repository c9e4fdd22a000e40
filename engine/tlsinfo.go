//go:build unix

package engine

import "crypto/tls"

// TLS returns the connection's TLS state (version, cipher suite, SNI
// server name, ALPN protocol, peer certificates and verified chains), or
// nil on a plaintext connection. Each call builds a new copy from the
// tls.Conn (one allocation; the state is not kept between requests, so an
// idle connection holds none of it). The certificate slices are shared
// with the connection: read them, do not change them. A sink Exchange
// returns the state it was made with.
func (ex *Exchange) TLS() *tls.ConnectionState {
	if ex.sink != nil {
		return ex.sink.tls
	}
	if ex.tlsc == nil {
		return nil
	}
	cs, ok := ex.tlsc.ConnectionState()
	if !ok {
		return nil
	}
	return &cs
}

// IsTLS reports whether the request came over TLS, without the cost of
// TLS (a sink Exchange: whether it was made with a TLS state).
func (ex *Exchange) IsTLS() bool {
	if ex.sink != nil {
		return ex.sink.tls != nil
	}
	return ex.tlsc != nil
}
