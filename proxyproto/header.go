package proxyproto

import (
	"errors"
	"net/netip"
)

// Errors Parse returns. Malformed headers wrap ErrMalformed with the detail.
var (
	// ErrNeedMore: the bytes so far are a valid beginning of a header;
	// call Parse again with more.
	ErrNeedMore = errors.New("proxyproto: incomplete header")
	// ErrNoHeader: the bytes do not begin with a PROXY protocol signature.
	ErrNoHeader = errors.New("proxyproto: no PROXY protocol signature")
	// ErrMalformed: the header breaks the specification's grammar.
	ErrMalformed = errors.New("proxyproto: malformed header")
	// ErrUnsupported: a version 2 header relays a datagram (UDP or Unix
	// datagram) connection.
	ErrUnsupported = errors.New("proxyproto: datagram transport on a stream connection")
	// ErrChecksum: a version 2 header's CRC32C TLV does not match.
	ErrChecksum = errors.New("proxyproto: CRC32C checksum mismatch")
)

// MaxV1Size is the longest version 1 header, CRLF included (the
// specification's worst case, "PROXY UNKNOWN" with two full IPv6 addresses).
const MaxV1Size = 107

// MaxV2Size is the longest version 2 header Parse accepts: the 16 fixed
// bytes and the length field's worth after them. A proxy's addresses and
// the TLVs HAProxy sends (ALPN, authority, a 128-byte unique ID, SSL
// details) fit in a few hundred bytes.
const MaxV2Size = 4096

// Family is the address family a header names.
type Family uint8

// The families: Unspec for version 1 "UNKNOWN", version 2 AF_UNSPEC, an
// UNSPEC transport and the LOCAL command; Unix for version 2 AF_UNIX.
const (
	Unspec Family = iota
	IPv4
	IPv6
	Unix
)

// Header is a parsed PROXY protocol header. The byte slices and strings it
// holds are its own (copies), never views of the parsed input.
type Header struct {
	// Version is 1 (text) or 2 (binary).
	Version int
	// Local is set for a version 2 LOCAL command: the proxy opened the
	// connection on its own behalf (a health check) and the real
	// connection's endpoints apply.
	Local bool
	// Family is the relayed connection's address family.
	Family Family
	// Source and Destination are the relayed connection's endpoints: the
	// client and the address it connected to. Both are the zero AddrPort
	// (IsValid false) when the header carries no IP address (Local, Unspec,
	// Unix); HasAddress says which.
	Source, Destination netip.AddrPort

	// The version 2 TLVs of interest; zero when absent.

	// ALPN is the protocol the client negotiated with the proxy.
	ALPN []byte
	// Authority is the host name the client asked for (TLS SNI, usually).
	Authority string
	// UniqueID identifies the connection at the proxy (at most 128 bytes).
	UniqueID []byte
	// SSL describes the client's TLS connection to the proxy, nil without
	// an SSL TLV.
	SSL *SSL
	// NetNS is the network namespace the proxy accepted the connection in.
	NetNS string
	// Checksummed is set when the header had a CRC32C TLV, which matched.
	Checksummed bool
}

// HasAddress reports whether the header gives the client's address.
func (h *Header) HasAddress() bool { return h.Source.IsValid() }

// SSL is the content of a version 2 PP2_TYPE_SSL TLV.
type SSL struct {
	// Client is the PP2_CLIENT_* bit field: 0x01 the client used TLS, 0x02
	// it sent a certificate on this connection, 0x04 on its TLS session.
	Client uint8
	// Verify is 0 when the client sent a certificate and it verified.
	Verify uint32
	// Version (e.g. "TLSv1.3"), CN (the client certificate's common name),
	// Cipher, SigAlg and KeyAlg (of the proxy's certificate) are the sub-TLVs
	// present, "" otherwise.
	Version, CN, Cipher, SigAlg, KeyAlg string
}

// The signatures: version 1's text and version 2's 12 bytes.
const (
	sigV1 = "PROXY "
	sigV2 = "\r\n\r\n\x00\r\nQUIT\n"
)

// Parse parses the PROXY protocol header at the start of b. It returns the
// header and its length n (b[n:] is what the connection carries next), or
// ErrNeedMore while b is a valid but incomplete beginning of a header, or
// an error when b cannot begin with a valid header (ErrNoHeader,
// ErrMalformed, ErrUnsupported, ErrChecksum). Parse reads nothing past the
// header, so the result for a complete header does not depend on what
// follows it, and once a prefix of the input gives a result other than
// ErrNeedMore, every longer input gives the same. It never reads more than
// MaxV2Size bytes.
func Parse(b []byte) (h Header, n int, err error) {
	if len(b) == 0 {
		return Header{}, 0, ErrNeedMore
	}
	switch b[0] {
	case sigV1[0]:
		if err := matchSig(b, sigV1); err != nil {
			return Header{}, 0, err
		}
		return parseV1(b)
	case sigV2[0]:
		if err := matchSig(b, sigV2); err != nil {
			return Header{}, 0, err
		}
		return parseV2(b)
	}
	return Header{}, 0, ErrNoHeader
}

// matchSig: nil when b begins with sig, ErrNeedMore when b is a strict
// prefix of it, ErrNoHeader otherwise.
func matchSig(b []byte, sig string) error {
	k := min(len(b), len(sig))
	if string(b[:k]) != sig[:k] {
		return ErrNoHeader
	}
	if k < len(sig) {
		return ErrNeedMore
	}
	return nil
}

// HasSignature reports whether b begins with a PROXY protocol signature
// (version 1's "PROXY " or version 2's 12 bytes); more is set while b is
// too short to tell (a strict prefix of one of them). A server that must
// not believe a header from some peer uses it to refuse one.
func HasSignature(b []byte) (match, more bool) {
	for _, sig := range [...]string{sigV1, sigV2} {
		switch matchSig(b, sig) {
		case nil:
			return true, false
		case ErrNeedMore:
			return false, true
		}
	}
	return false, false
}
