package websocket

import (
	"crypto/sha1"
	"encoding/base64"
	"strings"
)

// acceptGUID is the GUID RFC 6455 section 1.3 appends to the client's key.
const acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// AcceptKey returns the Sec-WebSocket-Accept value for a client's
// Sec-WebSocket-Key: base64(SHA-1(key + GUID)), RFC 6455 section 4.2.2.
func AcceptKey(clientKey string) string {
	h := sha1.New()
	h.Write([]byte(clientKey))
	h.Write([]byte(acceptGUID))
	var sum [sha1.Size]byte
	var out [28]byte // base64 of 20 bytes
	base64.StdEncoding.Encode(out[:], h.Sum(sum[:0]))
	return string(out[:])
}

// ValidClientKey reports whether key is a valid Sec-WebSocket-Key: the
// padded base64 encoding of exactly 16 bytes (24 characters), RFC 6455
// section 4.1.
func ValidClientKey(key string) bool {
	if len(key) != 24 {
		return false
	}
	var dst [18]byte
	n, err := base64.StdEncoding.Decode(dst[:], []byte(key))
	return err == nil && n == 16
}

// HeaderTokens splits header values holding comma-separated lists (as
// Sec-WebSocket-Protocol, or Connection) into their trimmed, non-empty
// elements, in order, over all values.
func HeaderTokens(values ...string) []string {
	var out []string
	for _, v := range values {
		for v != "" {
			var tok string
			tok, v, _ = strings.Cut(v, ",")
			if tok = strings.TrimSpace(tok); tok != "" {
				out = append(out, tok)
			}
		}
	}
	return out
}

// SelectSubprotocol returns the first of supported (the server's order of
// preference) that the client offered, or "" when none matches (the
// response then has no Sec-WebSocket-Protocol). offered are the tokens of
// every Sec-WebSocket-Protocol header ([HeaderTokens] splits them);
// subprotocol names are compared exactly, as RFC 6455 section 4.1 says
// they are case-sensitive.
func SelectSubprotocol(offered []string, supported []string) string {
	for _, s := range supported {
		for _, o := range offered {
			if o == s {
				return s
			}
		}
	}
	return ""
}
