package proxyproto

import (
	"fmt"
	"net/netip"
	"strings"
)

// v1Protocols are what may follow "PROXY ": the family and the separator
// after it ("UNKNOWN" may end the line at once).
var v1Protocols = [...]string{"TCP4 ", "TCP6 ", "UNKNOWN ", "UNKNOWN\r"}

var errV1TooLong = malformed("v1: no CRLF within the first %d bytes", MaxV1Size)

// parseV1 parses a version 1 line; b begins with "PROXY ". The checks run
// left to right over the bytes present, so an error found in a prefix is
// the error of every longer input.
func parseV1(b []byte) (Header, int, error) {
	rest := b[len(sigV1):]
	if !v1ProtocolPossible(rest) {
		return Header{}, 0, malformed("v1: unknown protocol (want TCP4, TCP6 or UNKNOWN)")
	}
	end := -1 // index of the CR of the CRLF
	for i := len(sigV1); i < min(len(b), MaxV1Size); i++ {
		switch c := b[i]; {
		case c == '\r':
			if i+1 >= MaxV1Size {
				return Header{}, 0, errV1TooLong // the LF cannot fit
			}
			if i+1 == len(b) {
				return Header{}, 0, ErrNeedMore
			}
			if b[i+1] != '\n' {
				return Header{}, 0, malformed("v1: CR not followed by LF")
			}
			end = i
		case c == '\n':
			return Header{}, 0, malformed("v1: LF without CR")
		case c < ' ' || c > '~':
			return Header{}, 0, malformed("v1: byte %#02x in the line", c)
		}
		if end >= 0 {
			break
		}
	}
	if end < 0 {
		if len(b) < MaxV1Size {
			return Header{}, 0, ErrNeedMore
		}
		return Header{}, 0, errV1TooLong
	}
	h, err := parseV1Line(string(b[len(sigV1):end]))
	if err != nil {
		return Header{}, 0, err
	}
	return h, end + 2, nil
}

// v1ProtocolPossible: rest (what follows "PROXY ") begins with, or is a
// beginning of, one of v1Protocols.
func v1ProtocolPossible(rest []byte) bool {
	for _, p := range v1Protocols {
		k := min(len(rest), len(p))
		if string(rest[:k]) == p[:k] {
			return true
		}
	}
	return false
}

// parseV1Line parses the line after "PROXY ", without its CRLF.
func parseV1Line(line string) (Header, error) {
	h := Header{Version: 1}
	if line == "UNKNOWN" || strings.HasPrefix(line, "UNKNOWN ") {
		return h, nil // the rest of the line is to be ignored
	}
	var f [5]string
	rest, ok := line, true
	for i := range f {
		if f[i], rest, ok = strings.Cut(rest, " "); !ok && i < len(f)-1 {
			return Header{}, malformed("v1: %d fields after the protocol, want 4 separated by single spaces", i)
		}
	}
	if ok {
		return Header{}, malformed("v1: more than 4 fields after the protocol")
	}
	switch f[0] {
	case "TCP4":
		h.Family = IPv4
	case "TCP6":
		h.Family = IPv6
	default:
		return Header{}, malformed("v1: unknown protocol %q", f[0])
	}
	src, err := parseV1Addr(f[1], h.Family)
	if err != nil {
		return Header{}, err
	}
	dst, err := parseV1Addr(f[2], h.Family)
	if err != nil {
		return Header{}, err
	}
	sport, err := parseV1Port(f[3])
	if err != nil {
		return Header{}, err
	}
	dport, err := parseV1Port(f[4])
	if err != nil {
		return Header{}, err
	}
	h.Source = netip.AddrPortFrom(src, sport)
	h.Destination = netip.AddrPortFrom(dst, dport)
	return h, nil
}

// parseV1Addr parses an address of family fam: a dotted quad for IPv4
// (netip refuses leading zeros), an IPv6 address without a zone for IPv6.
func parseV1Addr(s string, fam Family) (netip.Addr, error) {
	a, err := netip.ParseAddr(s)
	switch {
	case err != nil:
		return netip.Addr{}, malformed("v1: address %q: %v", s, err)
	case fam == IPv4 && !a.Is4():
		return netip.Addr{}, malformed("v1: %q is not an IPv4 address", s)
	case fam == IPv6 && (!a.Is6() || a.Zone() != ""):
		return netip.Addr{}, malformed("v1: %q is not an IPv6 address without a zone", s)
	}
	return a, nil
}

// parseV1Port parses a decimal port: 0 to 65535, no leading zero, no sign.
func parseV1Port(s string) (uint16, error) {
	if s == "" || len(s) > 5 || (s[0] == '0' && len(s) > 1) {
		return 0, malformed("v1: port %q", s)
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, malformed("v1: port %q", s)
		}
		n = n*10 + int(s[i]-'0')
	}
	if n > 65535 {
		return 0, malformed("v1: port %q", s)
	}
	return uint16(n), nil
}

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)
}
