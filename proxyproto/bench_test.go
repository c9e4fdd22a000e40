package proxyproto

import "testing"

func BenchmarkParseV1(b *testing.B) {
	in := []byte("PROXY TCP4 192.168.0.1 192.168.0.11 56324 443\r\nGET / HTTP/1.1\r\n")
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Parse(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseV2(b *testing.B) {
	in := withCRC(v2(0x21, 0x11, tcp4Block, tlv(0xe0, "custom")))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Parse(in); err != nil {
			b.Fatal(err)
		}
	}
}
