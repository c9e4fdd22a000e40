package gwist

import (
	"net/netip"

	"github.com/gwist/gwist/engine"
)

// ProxyProtocol makes the listener read the PROXY protocol (versions 1 and
// 2, told apart by their signatures) from the proxies in the trusted
// networks, such as HAProxy with send-proxy or send-proxy-v2:
//
//	app.Start(":8080", gwist.ProxyProtocol(netip.MustParsePrefix("10.0.0.0/8")))
//
// A connection from a trusted network must begin with a PROXY header within
// WithHeaderReadTimeout (10 s) of its accept; on a TLS listener the
// handshake starts after it. The header's source address is the client
// address handlers see (c.RemoteAddr(), a wrapped net/http handler's
// r.RemoteAddr, the access log and rate limiter); a header without one (a
// version 2 LOCAL health check, AF_UNSPEC, AF_UNIX, version 1 UNKNOWN)
// leaves the connection's own. A connection from any other address is
// served as usual with its own address, and is closed if it begins with a
// PROXY signature: a header is never believed from an untrusted peer.
// Missing, malformed, truncated or late headers, and version 2 headers
// whose CRC32C does not match, close the connection without a response;
// Stats().Proxy counts each case, and one log line a second at most says
// why. See the proxyproto package for what a valid header is.
//
// Listeners without this option read no header and pay nothing for it.
// The App's Start fails when no trusted network is given or one is invalid.
func ProxyProtocol(trusted ...netip.Prefix) ListenOption {
	t := append([]netip.Prefix(nil), trusted...)
	return func(c *listenConfig) { c.engine.ProxyProtocol = &engine.ProxyProtocol{Trusted: t} }
}
