package proxyproto

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"net/netip"
	"reflect"
	"strings"
	"testing"
)

// v2 builds a version 2 header by hand: the signature, the version and
// command byte, the family and transport byte, the length, then body.
func v2(verCmd, famProto byte, body ...[]byte) []byte {
	var rest []byte
	for _, b := range body {
		rest = append(rest, b...)
	}
	h := append([]byte(sigV2), verCmd, famProto, byte(len(rest)>>8), byte(len(rest)))
	return append(h, rest...)
}

func tlv(typ byte, val string) []byte {
	return append([]byte{typ, byte(len(val) >> 8), byte(len(val))}, val...)
}

// tcp4Block: 192.0.2.1:56324 -> 198.51.100.7:443.
var tcp4Block = []byte{192, 0, 2, 1, 198, 51, 100, 7, 0xdc, 0x04, 0x01, 0xbb}

var (
	src4 = netip.MustParseAddrPort("192.0.2.1:56324")
	dst4 = netip.MustParseAddrPort("198.51.100.7:443")
)

// withCRC appends a CRC32C TLV to h (a whole v2 header), fixes the length,
// and fills in the checksum as a sender does.
func withCRC(h []byte) []byte {
	h = append(h, tlvCRC32C, 0, 4, 0, 0, 0, 0)
	binary.BigEndian.PutUint16(h[14:16], uint16(len(h)-16))
	binary.BigEndian.PutUint32(h[len(h)-4:], crc32.Checksum(h, crc32.MakeTable(crc32.Castagnoli)))
	return h
}

func TestParseV1(t *testing.T) {
	ipv6Max := "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"
	cases := []struct {
		name, in  string
		n         int
		src, dst  string // "" for no address
		fam       Family
		wantError error
	}{
		{"spec example", "PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\nGET / HTTP/1.1\r\n", 47, "192.168.0.1:56324", "192.168.0.11:443", IPv4, nil},
		{"longest tcp4 (56)", "PROXY TCP4 255.255.255.255 255.255.255.255 65535 65535\r\n", 56, "255.255.255.255:65535", "255.255.255.255:65535", IPv4, nil},
		{"longest tcp6 (104)", "PROXY TCP6 " + ipv6Max + " " + ipv6Max + " 65535 65535\r\n", 104, "[" + ipv6Max + "]:65535", "[" + ipv6Max + "]:65535", IPv6, nil},
		{"tcp6 compressed", "PROXY TCP6 2001:db8::1 ::1 1 0\r\n", 32, "[2001:db8::1]:1", "[::1]:0", IPv6, nil},
		{"tcp6 upper case", "PROXY TCP6 2001:DB8::A ::1 1 2\r\n", 32, "[2001:db8::a]:1", "[::1]:2", IPv6, nil},
		{"tcp6 v4-mapped (HAProxy, mixed families)", "PROXY TCP6 ::ffff:127.0.0.2 ::ffff:127.0.0.1 5 6\r\n", 50, "[::ffff:127.0.0.2]:5", "[::ffff:127.0.0.1]:6", IPv6, nil},
		{"unknown short (15)", "PROXY UNKNOWN\r\nrest", 15, "", "", Unspec, nil},
		{"unknown worst case (107)", "PROXY UNKNOWN " + ipv6Max + " " + ipv6Max + " 65535 65535\r\n", 107, "", "", Unspec, nil},
		{"unknown with anything", "PROXY UNKNOWN whatever ~!@\r\n", 28, "", "", Unspec, nil},

		{"double space", "PROXY TCP4  1.2.3.4 5.6.7.8 1 2\r\n", 0, "", "", 0, ErrMalformed},
		{"space before CRLF", "PROXY TCP4 1.2.3.4 5.6.7.8 1 2 \r\n", 0, "", "", 0, ErrMalformed},
		{"missing port", "PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n", 0, "", "", 0, ErrMalformed},
		{"port leading zero", "PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n", 0, "", "", 0, ErrMalformed},
		{"port too large", "PROXY TCP4 1.2.3.4 5.6.7.8 65536 2\r\n", 0, "", "", 0, ErrMalformed},
		{"port sign", "PROXY TCP4 1.2.3.4 5.6.7.8 +1 2\r\n", 0, "", "", 0, ErrMalformed},
		{"port six digits", "PROXY TCP4 1.2.3.4 5.6.7.8 000001 2\r\n", 0, "", "", 0, ErrMalformed},
		{"octet leading zero", "PROXY TCP4 1.2.3.04 5.6.7.8 1 2\r\n", 0, "", "", 0, ErrMalformed},
		{"octet too large", "PROXY TCP4 1.2.3.256 5.6.7.8 1 2\r\n", 0, "", "", 0, ErrMalformed},
		{"three octets", "PROXY TCP4 1.2.3 5.6.7.8 1 2\r\n", 0, "", "", 0, ErrMalformed},
		{"tcp4 with ipv6", "PROXY TCP4 ::1 5.6.7.8 1 2\r\n", 0, "", "", 0, ErrMalformed},
		{"tcp4 with v4-mapped", "PROXY TCP4 ::ffff:1.2.3.4 5.6.7.8 1 2\r\n", 0, "", "", 0, ErrMalformed},
		{"tcp6 with ipv4", "PROXY TCP6 1.2.3.4 ::1 1 2\r\n", 0, "", "", 0, ErrMalformed},
		{"tcp6 zone", "PROXY TCP6 fe80::1%eth0 ::1 1 2\r\n", 0, "", "", 0, ErrMalformed},
		{"lower case protocol", "PROXY tcp4 1.2.3.4 5.6.7.8 1 2\r\n", 0, "", "", 0, ErrMalformed},
		{"unknown protocol", "PROXY UDP4 1.2.3.4 5.6.7.8 1 2\r\n", 0, "", "", 0, ErrMalformed},
		{"UNKNOWNX", "PROXY UNKNOWNX\r\n", 0, "", "", 0, ErrMalformed},
		{"LF alone", "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n", 0, "", "", 0, ErrMalformed},
		{"CR alone", "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX", 0, "", "", 0, ErrMalformed},
		{"CR in unknown", "PROXY UNKNOWN a\rb\r\n", 0, "", "", 0, ErrMalformed},
		{"NUL", "PROXY TCP4 1.2.3.4\x00", 0, "", "", 0, ErrMalformed},
		{"tab", "PROXY TCP4\t1.2.3.4 5.6.7.8 1 2\r\n", 0, "", "", 0, ErrMalformed},
		{"108 bytes", "PROXY UNKNOWN " + ipv6Max + " " + ipv6Max + " 65535 655350\r\n", 0, "", "", 0, ErrMalformed},
		{"no CRLF in 107", "PROXY UNKNOWN " + strings.Repeat("a", 200), 0, "", "", 0, ErrMalformed},
		{"CRLF at 107-108", "PROXY UNKNOWN " + strings.Repeat("a", 92) + "\r\n", 0, "", "", 0, ErrMalformed},
		{"PROXY without space", "PROXYTCP4 1.2.3.4 5.6.7.8 1 2\r\n", 0, "", "", 0, ErrNoHeader},
		{"lower case PROXY", "proxy TCP4 1.2.3.4 5.6.7.8 1 2\r\n", 0, "", "", 0, ErrNoHeader},
		{"HTTP", "GET / HTTP/1.1\r\n\r\n", 0, "", "", 0, ErrNoHeader},
		{"TLS", "\x16\x03\x01\x00\x05hello", 0, "", "", 0, ErrNoHeader},
		{"PRI (h2 preface)", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 0, "", "", 0, ErrNoHeader},

		{"empty", "", 0, "", "", 0, ErrNeedMore},
		{"part of the signature", "PROX", 0, "", "", 0, ErrNeedMore},
		{"part of the line", "PROXY TCP4 1.2.3.4 5.6", 0, "", "", 0, ErrNeedMore},
		{"CR without LF yet", "PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r", 0, "", "", 0, ErrNeedMore},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, n, err := Parse([]byte(tc.in))
			if tc.wantError != nil {
				if !errors.Is(err, tc.wantError) {
					t.Fatalf("err %v, want %v (header %+v, n %d)", err, tc.wantError, h, n)
				}
				if n != 0 || !reflect.DeepEqual(h, Header{}) {
					t.Fatalf("an error with a header: %+v, n %d", h, n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.n || h.Version != 1 || h.Family != tc.fam || h.Local {
				t.Fatalf("n %d version %d family %d local %v; want n %d family %d", n, h.Version, h.Family, h.Local, tc.n, tc.fam)
			}
			checkAddrs(t, h, tc.src, tc.dst)
		})
	}
}

func checkAddrs(t *testing.T, h Header, src, dst string) {
	t.Helper()
	if src == "" {
		if h.HasAddress() || h.Source.IsValid() || h.Destination.IsValid() {
			t.Fatalf("addresses %v %v, want none", h.Source, h.Destination)
		}
		return
	}
	if !h.HasAddress() || h.Source.String() != src || h.Destination.String() != dst {
		t.Fatalf("source %v destination %v, want %s %s", h.Source, h.Destination, src, dst)
	}
}

func TestParseV2(t *testing.T) {
	tcp6 := make([]byte, 36)
	copy(tcp6, netip.MustParseAddr("2001:db8::1").AsSlice())
	copy(tcp6[16:], netip.MustParseAddr("2001:db8::2").AsSlice())
	binary.BigEndian.PutUint16(tcp6[32:], 1234)
	binary.BigEndian.PutUint16(tcp6[34:], 443)
	unixBlock := make([]byte, 216)
	copy(unixBlock, "/run/haproxy.sock")

	ssl := tlv(tlvSSL, "\x07\x00\x00\x00\x00"+string(tlv(sslVersion, "TLSv1.3"))+string(tlv(sslCN, "client.example"))+
		string(tlv(sslCipher, "TLS_AES_128_GCM_SHA256"))+string(tlv(sslSigAlg, "RSA-SHA256"))+string(tlv(sslKeyAlg, "RSA2048"))+
		string(tlv(0x2f, "unknown sub")))

	type want struct {
		n          int
		local      bool
		fam        Family
		src, dst   string
		checkOther func(t *testing.T, h Header)
	}
	cases := []struct {
		name string
		in   []byte
		want want
		err  error
	}{
		{"tcp4, spelled out", append([]byte("\r\n\r\n\x00\r\nQUIT\n\x21\x11\x00\x0c"), tcp4Block...),
			want{n: 28, fam: IPv4, src: "192.0.2.1:56324", dst: "198.51.100.7:443"}, nil},
		{"tcp4 then data", append(v2(0x21, 0x11, tcp4Block), "GET / HTTP/1.1\r\n"...),
			want{n: 28, fam: IPv4, src: src4.String(), dst: dst4.String()}, nil},
		{"tcp6", v2(0x21, 0x21, tcp6),
			want{n: 52, fam: IPv6, src: "[2001:db8::1]:1234", dst: "[2001:db8::2]:443"}, nil},
		{"local, no block", v2(0x20, 0x00), want{n: 16, local: true}, nil},
		{"local with a block and garbage TLVs (ignored)", v2(0x20, 0x11, tcp4Block, []byte{0xff, 0xff}),
			want{n: 30, local: true}, nil},
		{"local with a datagram family (ignored)", v2(0x20, 0x12, tcp4Block), want{n: 28, local: true}, nil},
		{"proxy, AF_UNSPEC: no address", v2(0x21, 0x00, []byte("anything")), want{n: 24}, nil},
		{"proxy, inet with UNSPEC transport: no address", v2(0x21, 0x10, tcp4Block), want{n: 28}, nil},
		{"proxy, AF_UNIX stream: no address, TLVs read", v2(0x21, 0x31, unixBlock, tlv(tlvAuthority, "example.com")),
			want{n: 16 + 216 + 14, fam: Unix, checkOther: func(t *testing.T, h Header) {
				if h.Authority != "example.com" {
					t.Fatalf("authority %q", h.Authority)
				}
			}}, nil},
		{"TLVs of interest", v2(0x21, 0x11, tcp4Block, tlv(tlvALPN, "h2"), tlv(tlvAuthority, "www.example.com"),
			tlv(tlvNoop, "\x00\x00"), tlv(tlvUniqueID, strings.Repeat("u", 128)), ssl, tlv(tlvNetNS, "blue"),
			tlv(0xe0, "custom"), tlv(0xf8, "future"), tlv(0x21, "sub-type at top level")),
			want{n: 0, fam: IPv4, src: src4.String(), dst: dst4.String(), checkOther: func(t *testing.T, h Header) {
				want := &SSL{Client: 7, Version: "TLSv1.3", CN: "client.example", Cipher: "TLS_AES_128_GCM_SHA256", SigAlg: "RSA-SHA256", KeyAlg: "RSA2048"}
				if string(h.ALPN) != "h2" || h.Authority != "www.example.com" || string(h.UniqueID) != strings.Repeat("u", 128) ||
					h.NetNS != "blue" || !reflect.DeepEqual(h.SSL, want) || h.Checksummed {
					t.Fatalf("%+v %+v", h, h.SSL)
				}
			}}, nil},
		{"empty TLV values", v2(0x21, 0x11, tcp4Block, tlv(tlvNoop, ""), tlv(0x99, "")),
			want{fam: IPv4, src: src4.String(), dst: dst4.String()}, nil},
		{"crc32c", withCRC(v2(0x21, 0x11, tcp4Block, tlv(tlvAuthority, "a.example"))),
			want{fam: IPv4, src: src4.String(), dst: dst4.String(), checkOther: func(t *testing.T, h Header) {
				if !h.Checksummed || h.Authority != "a.example" {
					t.Fatalf("%+v", h)
				}
			}}, nil},
		{"largest accepted", v2(0x21, 0x11, tcp4Block, tlv(0xe0, strings.Repeat("x", MaxV2Size-16-12-3))),
			want{n: MaxV2Size, fam: IPv4, src: src4.String(), dst: dst4.String()}, nil},

		{"crc32c mismatch", func() []byte { h := withCRC(v2(0x21, 0x11, tcp4Block)); h[16] ^= 1; return h }(), want{}, ErrChecksum},
		{"crc32c of 3 bytes", v2(0x21, 0x11, tcp4Block, tlv(tlvCRC32C, "abc")), want{}, ErrMalformed},
		{"two crc32c", func() []byte {
			h := withCRC(v2(0x21, 0x11, tcp4Block))
			return withCRC(h)
		}(), want{}, ErrMalformed},
		{"version 1 in a v2 header", v2(0x11, 0x11, tcp4Block), want{}, ErrMalformed},
		{"version 3", v2(0x31, 0x11, tcp4Block), want{}, ErrMalformed},
		{"command 2", v2(0x22, 0x11, tcp4Block), want{}, ErrMalformed},
		{"family 4", v2(0x21, 0x41, tcp4Block), want{}, ErrMalformed},
		{"transport 3", v2(0x21, 0x13, tcp4Block), want{}, ErrMalformed},
		{"udp4", v2(0x21, 0x12, tcp4Block), want{}, ErrUnsupported},
		{"udp6", v2(0x21, 0x22, tcp6), want{}, ErrUnsupported},
		{"unix datagram", v2(0x21, 0x32, unixBlock), want{}, ErrUnsupported},
		{"tcp4 block too short", v2(0x21, 0x11, tcp4Block[:11]), want{}, ErrMalformed},
		{"tcp6 block too short", v2(0x21, 0x21, tcp4Block), want{}, ErrMalformed},
		{"unix block too short", v2(0x21, 0x31, tcp6), want{}, ErrMalformed},
		{"TLV header cut", v2(0x21, 0x11, tcp4Block, []byte{tlvNoop, 0}), want{}, ErrMalformed},
		{"TLV overruns by one", v2(0x21, 0x11, tcp4Block, []byte{tlvALPN, 0, 3, 'h', '2'}), want{}, ErrMalformed},
		{"unknown TLV overruns", v2(0x21, 0x11, tcp4Block, []byte{0xe5, 0xff, 0xff, 1}), want{}, ErrMalformed},
		{"two authorities", v2(0x21, 0x11, tcp4Block, tlv(tlvAuthority, "a"), tlv(tlvAuthority, "b")), want{}, ErrMalformed},
		{"two NETNS", v2(0x21, 0x11, tcp4Block, tlv(tlvNetNS, "a"), tlv(tlvNetNS, "b")), want{}, ErrMalformed},
		{"two SSL", v2(0x21, 0x11, tcp4Block, tlv(tlvSSL, "\x01\x00\x00\x00\x00"), tlv(tlvSSL, "\x01\x00\x00\x00\x00")), want{}, ErrMalformed},
		{"authority not UTF-8", v2(0x21, 0x11, tcp4Block, tlv(tlvAuthority, "\xff")), want{}, ErrMalformed},
		{"unique id of 129", v2(0x21, 0x11, tcp4Block, tlv(tlvUniqueID, strings.Repeat("u", 129))), want{}, ErrMalformed},
		{"SSL of 4 bytes", v2(0x21, 0x11, tcp4Block, tlv(tlvSSL, "\x01\x00\x00\x00")), want{}, ErrMalformed},
		{"SSL sub-TLV overruns", v2(0x21, 0x11, tcp4Block, tlv(tlvSSL, "\x01\x00\x00\x00\x00\x21\x00\x09TLSv1.3")), want{}, ErrMalformed},
		{"one byte over the limit", v2(0x21, 0x11, tcp4Block, tlv(0xe0, strings.Repeat("x", MaxV2Size-16-12-3+1))), want{}, ErrMalformed},
		{"length 65535, before it arrives", []byte(sigV2 + "\x21\x11\xff\xff"), want{}, ErrMalformed},
		{"bad signature", []byte("\r\n\r\n\x00\r\nQUIT\r\x21\x11\x00\x00"), want{}, ErrNoHeader},

		{"signature only", []byte(sigV2), want{}, ErrNeedMore},
		{"fixed part only", v2(0x21, 0x11, tcp4Block)[:16], want{}, ErrNeedMore},
		{"one byte short", v2(0x21, 0x11, tcp4Block)[:27], want{}, ErrNeedMore},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, n, err := Parse(tc.in)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err %v, want %v (header %+v, n %d)", err, tc.err, h, n)
				}
				if n != 0 || !reflect.DeepEqual(h, Header{}) {
					t.Fatalf("an error with a header: %+v, n %d", h, n)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			w := tc.want
			if w.n == 0 {
				w.n = len(tc.in)
			}
			if n != w.n || h.Version != 2 || h.Local != w.local || h.Family != w.fam {
				t.Fatalf("n %d version %d local %v family %d; want n %d local %v family %d", n, h.Version, h.Local, h.Family, w.n, w.local, w.fam)
			}
			checkAddrs(t, h, w.src, w.dst)
			if w.checkOther != nil {
				w.checkOther(t, h)
			}
		})
	}
}

// TestCastagnoli pins the checksum to CRC32C (not the IEEE CRC32) with its
// standard check value.
func TestCastagnoli(t *testing.T) {
	if got := crc32.Checksum([]byte("123456789"), castagnoli); got != 0xe3069283 {
		t.Fatalf("crc32c(123456789) = %#x", got)
	}
}

func TestHasSignature(t *testing.T) {
	cases := []struct {
		in          string
		match, more bool
	}{
		{"", false, true},
		{"P", false, true},
		{"PROXY", false, true},
		{"PROXY ", true, false},
		{"PROXY TCP4 garbage", true, false},
		{"PROXYX", false, false},
		{"PRI * HTTP/2.0", false, false},
		{"POST / HTTP/1.1", false, false},
		{"\r", false, true},
		{"\r\n\r\n\x00\r\nQUI", false, true},
		{sigV2, true, false},
		{"\r\nGET / HTTP/1.1", false, false},
		{"\x16\x03\x01", false, false},
	}
	for _, tc := range cases {
		if match, more := HasSignature([]byte(tc.in)); match != tc.match || more != tc.more {
			t.Errorf("%q: match %v more %v, want %v %v", tc.in, match, more, tc.match, tc.more)
		}
	}
}

// TestParseDoesNotAlias: the header's slices and strings are copies, not
// views of the input (the engine's read buffer is reused).
func TestParseDoesNotAlias(t *testing.T) {
	in := v2(0x21, 0x11, tcp4Block, tlv(tlvALPN, "h2"), tlv(tlvUniqueID, "id-1"), tlv(tlvAuthority, "a.example"))
	h, _, err := Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i] = 'X'
	}
	if string(h.ALPN) != "h2" || string(h.UniqueID) != "id-1" || h.Authority != "a.example" {
		t.Fatalf("the header changed with its input: %+v", h)
	}
}
