package proxyproto

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics; a header never extends past n nor depends
// on the bytes after it; and feeding the input a byte at a time (as a
// connection's reads may deliver it) gives ErrNeedMore until the first
// result, which is the whole input's result, and every longer prefix gives
// that result too.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\nGET / HTTP/1.1\r\n",
		"PROXY TCP6 2001:db8::1 ::1 1 0\r\n",
		"PROXY TCP6 ::ffff:127.0.0.2 ::ffff:127.0.0.1 5 6\r\n",
		"PROXY UNKNOWN\r\n",
		"PROXY UNKNOWN " + strings.Repeat("f", 91) + "\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX",
		"GET / HTTP/1.1\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	for _, b := range [][]byte{
		v2(0x21, 0x11, tcp4Block),
		v2(0x20, 0x00),
		v2(0x21, 0x21, make([]byte, 36), tlv(tlvALPN, "h2")),
		v2(0x21, 0x31, make([]byte, 216), tlv(tlvNetNS, "ns")),
		v2(0x21, 0x11, tcp4Block, tlv(tlvAuthority, "example.com"), tlv(tlvUniqueID, "id"), tlv(0xe0, "x"),
			tlv(tlvSSL, "\x01\x00\x00\x00\x00"+string(tlv(sslVersion, "TLSv1.3")))),
		withCRC(v2(0x21, 0x11, tcp4Block, tlv(tlvAuthority, "a"))),
		v2(0x21, 0x11, tcp4Block, []byte{tlvALPN, 0, 9, 'h'}),
	} {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h, n, err := Parse(b)
		if err == nil {
			if n <= 0 || n > len(b) || n > MaxV2Size {
				t.Fatalf("n = %d for %d bytes", n, len(b))
			}
			// Nothing past n was read: the header alone gives the same.
			h2, n2, err2 := Parse(b[:n:n])
			if err2 != nil || n2 != n || !reflect.DeepEqual(h, h2) {
				t.Fatalf("the header alone: %+v %d %v; with what follows: %+v %d", h2, n2, err2, h, n)
			}
			if h.HasAddress() != h.Source.IsValid() || h.Source.IsValid() != h.Destination.IsValid() {
				t.Fatalf("half an address: %+v", h)
			}
			if h.Local && h.HasAddress() {
				t.Fatalf("LOCAL with an address: %+v", h)
			}
		} else if n != 0 || !reflect.DeepEqual(h, Header{}) {
			t.Fatalf("error %v with n %d and %+v", err, n, h)
		}
		// Every prefix: ErrNeedMore until the first result, then that
		// result, which is the whole input's.
		decided := false
		for k := 0; k <= len(b); k++ {
			hk, nk, errk := Parse(b[:k:k])
			if errors.Is(errk, ErrNeedMore) {
				if decided {
					t.Fatalf("ErrNeedMore at %d bytes after a result at fewer", k)
				}
				continue
			}
			decided = true
			if nk != n || !sameErr(errk, err) || !reflect.DeepEqual(hk, h) {
				t.Fatalf("%d of %d bytes: %+v %d %v; whole: %+v %d %v", k, len(b), hk, nk, errk, h, n, err)
			}
			if k > MaxV2Size+1 {
				break // nothing beyond the largest header can matter
			}
		}
		if !decided && !errors.Is(err, ErrNeedMore) {
			t.Fatalf("no prefix decided, the whole gave %v", err)
		}
	})
}

func sameErr(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Error() == b.Error()
}
