package proxyproto

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"unicode/utf8"
)

// The registered TLV types and the SSL TLV's sub-types.
const (
	tlvALPN      = 0x01
	tlvAuthority = 0x02
	tlvCRC32C    = 0x03
	tlvNoop      = 0x04
	tlvUniqueID  = 0x05
	tlvSSL       = 0x20
	tlvNetNS     = 0x30

	sslVersion = 0x21
	sslCN      = 0x22
	sslCipher  = 0x23
	sslSigAlg  = 0x24
	sslKeyAlg  = 0x25

	maxUniqueID = 128
	sslFixed    = 5 // client (1) and verify (4) before the sub-TLVs
)

var (
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
	zeroCRC    [4]byte // what the checksum is computed over in its own place
)

// nextTLV splits b into its first TLV's type and value and what follows,
// refusing a TLV whose length runs past b's end.
func nextTLV(b []byte, what string) (typ byte, val, rest []byte, err error) {
	if len(b) < 3 {
		return 0, nil, nil, malformed("v2: %d bytes left, too few for a %s", len(b), what)
	}
	l := int(binary.BigEndian.Uint16(b[1:3]))
	if 3+l > len(b) {
		return 0, nil, nil, malformed("v2: %s %#02x of %d bytes overruns its end by %d", what, b[0], l, 3+l-len(b))
	}
	return b[0], b[3 : 3+l], b[3+l:], nil
}

// parseTLVs reads the TLVs of hdr, a whole version 2 header, from off.
func parseTLVs(h *Header, hdr []byte, off int) error {
	var seen [256]bool
	crcAt := -1
	for rest := hdr[off:]; len(rest) > 0; {
		at := len(hdr) - len(rest)
		typ, v, r, err := nextTLV(rest, "TLV")
		if err != nil {
			return err
		}
		rest = r
		switch typ {
		case tlvALPN, tlvAuthority, tlvCRC32C, tlvUniqueID, tlvSSL, tlvNetNS:
			if seen[typ] {
				return malformed("v2: TLV %#02x appears twice", typ)
			}
			seen[typ] = true
		}
		switch typ {
		case tlvALPN:
			h.ALPN = bytes.Clone(v)
		case tlvAuthority:
			if !utf8.Valid(v) {
				return malformed("v2: AUTHORITY is not UTF-8")
			}
			h.Authority = string(v)
		case tlvCRC32C:
			if len(v) != 4 {
				return malformed("v2: CRC32C of %d bytes, want 4", len(v))
			}
			crcAt = at + 3
		case tlvUniqueID:
			if len(v) > maxUniqueID {
				return malformed("v2: UNIQUE_ID of %d bytes, over %d", len(v), maxUniqueID)
			}
			h.UniqueID = bytes.Clone(v)
		case tlvSSL:
			if h.SSL, err = parseSSL(v); err != nil {
				return err
			}
		case tlvNetNS:
			h.NetNS = string(v)
		case tlvNoop: // padding
		default:
			// NOOP, and types this package does not know: skipped, as the
			// specification asks, now that their length is known to fit.
		}
	}
	if crcAt >= 0 {
		if err := checkCRC(hdr, crcAt); err != nil {
			return err
		}
		h.Checksummed = true
	}
	return nil
}

// checkCRC verifies the CRC32C of hdr whose 4-byte value is at hdr[at:]:
// the checksum of the header with those bytes zeroed.
func checkCRC(hdr []byte, at int) error {
	want := binary.BigEndian.Uint32(hdr[at : at+4])
	sum := crc32.Update(0, castagnoli, hdr[:at])
	sum = crc32.Update(sum, castagnoli, zeroCRC[:])
	sum = crc32.Update(sum, castagnoli, hdr[at+4:])
	if sum != want {
		return fmt.Errorf("%w: header says %#08x, computed %#08x", ErrChecksum, want, sum)
	}
	return nil
}

// parseSSL parses a PP2_TYPE_SSL value: client, verify, then sub-TLVs.
func parseSSL(v []byte) (*SSL, error) {
	if len(v) < sslFixed {
		return nil, malformed("v2: SSL TLV of %d bytes, want at least %d", len(v), sslFixed)
	}
	s := &SSL{Client: v[0], Verify: binary.BigEndian.Uint32(v[1:5])}
	for rest := v[sslFixed:]; len(rest) > 0; {
		typ, sv, r, err := nextTLV(rest, "SSL sub-TLV")
		if err != nil {
			return nil, err
		}
		rest = r
		switch typ {
		case sslVersion:
			s.Version = string(sv)
		case sslCN:
			s.CN = string(sv)
		case sslCipher:
			s.Cipher = string(sv)
		case sslSigAlg:
			s.SigAlg = string(sv)
		case sslKeyAlg:
			s.KeyAlg = string(sv)
		}
	}
	return s, nil
}
