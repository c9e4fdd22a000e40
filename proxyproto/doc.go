// Package proxyproto parses PROXY protocol headers (versions 1 and 2, as
// specified in HAProxy's doc/proxy-protocol.txt): the block a proxy or load
// balancer sends at the start of a connection to tell the server whose
// connection it relays. It is sans-I/O: it reads byte slices, owns no socket
// and keeps no state between calls, so the caller feeds it whatever it has
// read so far.
//
//	h, n, err := proxyproto.Parse(buffered)
//	switch {
//	case errors.Is(err, proxyproto.ErrNeedMore): // read more, call again with all of it
//	case err != nil:                             // close the connection
//	default:                                     // drop buffered[:n]; the rest is the relayed protocol
//	}
//
// # What is accepted
//
// Version 1 (text): exactly "PROXY TCP4 src dst sport dport\r\n" or the TCP6
// form, single spaces, addresses of the named family (IPv4 dotted quads
// without leading zeros; IPv6 without a zone, in any form net/netip parses,
// including the "::ffff:1.2.3.4" form HAProxy sends for an IPv4 client on
// a TCP6 line), ports 0–65535 without leading zeros, and the CRLF within
// the first 107 bytes. "PROXY UNKNOWN" followed by anything up to the CRLF is
// accepted and carries no address. A lone CR or LF, a byte outside printable
// ASCII, or anything else is an error.
//
// Version 2 (binary): the 12-byte signature, version 2, command LOCAL or
// PROXY, a known family and transport, and at most [MaxV2Size] bytes in all
// (the length field can claim up to 64 KiB; longer is an error before any of
// it is buffered). Then:
//
//   - LOCAL (the proxy's own connection, such as a health check): accepted;
//     everything after the 16 fixed bytes is skipped unread, as the
//     specification says. Header.Local is set and the header carries no
//     address.
//   - PROXY over TCP (AF_INET or AF_INET6 with STREAM): the addresses and
//     ports, then the TLVs.
//   - PROXY with AF_UNSPEC or an UNSPEC transport: accepted like LOCAL (no
//     address: the receiver keeps the real connection's), the block skipped,
//     as the specification allows.
//   - PROXY with AF_UNIX over STREAM: accepted with no address (a Unix socket
//     path is not a client address a server could use); its 216 address bytes
//     are skipped and the TLVs after them parsed.
//   - PROXY over DGRAM (UDP, Unix datagram): an error ([ErrUnsupported]); a
//     stream server cannot be relaying a datagram flow.
//   - An address block shorter than its family needs is an error.
//
// TLVs (version 2, PROXY command): every TLV's length is checked against the
// header's end before its value is read; one that overruns it, or a header
// that ends inside a TLV's 3-byte type and length, is an error. Known types:
// ALPN, AUTHORITY (must be valid UTF-8), UNIQUE_ID (at most 128 bytes), SSL
// (at least its 5 fixed bytes, and its sub-TLVs length-checked the same way:
// version, CN, cipher, signature and key algorithms), NETNS, NOOP (skipped),
// and CRC32C (4 bytes; the checksum of the whole header with its value zeroed
// is verified, and a mismatch is [ErrChecksum]). ALPN, AUTHORITY, CRC32C,
// UNIQUE_ID, SSL and NETNS may appear once each; a second one is an error, so that
// two parts of a system can never read different values from one header.
// Unknown types (the custom, experimental and future ranges included) are
// skipped once their length is validated: the specification tells receivers
// to ignore what they do not understand, and a proxy adding a TLV must not
// cut its clients off.
//
// A truncated header is never an error by itself: Parse returns
// [ErrNeedMore] until the header is complete or cannot become valid, and the
// caller decides how long to wait (a timeout) and what a close in the middle
// means. Bytes that cannot start either signature are [ErrNoHeader].
package proxyproto
