//go:build unix

package engine

// WebSocket over HTTP/2 (RFC 8441): an extended CONNECT stream whose DATA
// frames carry the WebSocket frames.

// upgradeWS turns an extended CONNECT stream into a WebSocket.
func (s *h2Stream) upgradeWS(ex *Exchange, up WSUpgrade) (*WSConn, error) {
	return nil, ErrUpgrade
}

// IsHTTP2 reports whether the request came on an HTTP/2 stream.
func (ex *Exchange) IsHTTP2() bool { return ex.h2 != nil }

// Protocol is an HTTP/2 extended CONNECT's :protocol (RFC 8441), "" for
// any other request.
func (ex *Exchange) Protocol() string { return "" }
