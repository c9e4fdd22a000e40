package proxyproto

import (
	"encoding/binary"
	"fmt"
	"net/netip"
)

// Version 2's fixed part: the signature, then version and command, family
// and transport, and the length of what follows.
const v2FixedSize = 16

const (
	cmdLocal = 0x0
	cmdProxy = 0x1

	famUnspec = 0x0
	famInet   = 0x1
	famInet6  = 0x2
	famUnix   = 0x3

	protoUnspec = 0x0
	protoStream = 0x1
	protoDgram  = 0x2
)

// v2AddrSize is the address block's size for each family (addresses, then
// ports for AF_INET and AF_INET6).
var v2AddrSize = [...]int{famInet: 12, famInet6: 36, famUnix: 216}

// parseV2 parses a version 2 header; b begins with its signature. The
// fixed bytes are checked as soon as they are present; the rest once the
// whole header is.
func parseV2(b []byte) (Header, int, error) {
	if len(b) > 12 {
		if v := b[12] >> 4; v != 2 {
			return Header{}, 0, malformed("v2: version %d", v)
		}
		if cmd := b[12] & 0xf; cmd != cmdLocal && cmd != cmdProxy {
			return Header{}, 0, malformed("v2: command %#x", cmd)
		}
	}
	if len(b) > 13 {
		if fam, proto := b[13]>>4, b[13]&0xf; fam > famUnix || proto > protoDgram {
			return Header{}, 0, malformed("v2: family and transport %#02x", b[13])
		}
	}
	if len(b) < v2FixedSize {
		return Header{}, 0, ErrNeedMore
	}
	size := v2FixedSize + int(binary.BigEndian.Uint16(b[14:16]))
	if size > MaxV2Size {
		return Header{}, 0, malformed("v2: a header of %d bytes, over the %d-byte limit", size, MaxV2Size)
	}
	if len(b) < size {
		return Header{}, 0, ErrNeedMore
	}
	hdr := b[:size]
	h := Header{Version: 2}
	fam, proto := hdr[13]>>4, hdr[13]&0xf
	switch {
	case hdr[12]&0xf == cmdLocal:
		h.Local = true // the block, family included, is to be ignored
		return h, size, nil
	case proto == protoDgram:
		return Header{}, 0, fmt.Errorf("%w (family and transport %#02x)", ErrUnsupported, hdr[13])
	case fam == famUnspec || proto == protoUnspec:
		return h, size, nil // no usable address: the block is skipped
	}
	block := hdr[v2FixedSize:]
	need := v2AddrSize[fam]
	if len(block) < need {
		return Header{}, 0, malformed("v2: %d address bytes, family %d needs %d", len(block), fam, need)
	}
	switch fam {
	case famInet:
		h.Family = IPv4
		h.Source = netip.AddrPortFrom(netip.AddrFrom4([4]byte(block[0:4])), binary.BigEndian.Uint16(block[8:10]))
		h.Destination = netip.AddrPortFrom(netip.AddrFrom4([4]byte(block[4:8])), binary.BigEndian.Uint16(block[10:12]))
	case famInet6:
		h.Family = IPv6
		h.Source = netip.AddrPortFrom(netip.AddrFrom16([16]byte(block[0:16])), binary.BigEndian.Uint16(block[32:34]))
		h.Destination = netip.AddrPortFrom(netip.AddrFrom16([16]byte(block[16:32])), binary.BigEndian.Uint16(block[34:36]))
	case famUnix:
		h.Family = Unix // socket paths, not client addresses: skipped
	}
	if err := parseTLVs(&h, hdr, v2FixedSize+need); err != nil {
		return Header{}, 0, err
	}
	return h, size, nil
}
