package http1

import (
	"math/rand/v2"
	"testing"
)

func naiveTarget(b []byte) bool {
	for _, c := range b {
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

func naiveValue(b []byte) bool {
	for _, c := range b {
		if c != '\t' && (c < 0x20 || c == 0x7f) {
			return false
		}
	}
	return true
}

// TestSWARValidators compares the word-at-a-time checks with byte loops:
// every byte value at every position of buffers of several lengths, plus
// random buffers.
func TestSWARValidators(t *testing.T) {
	for n := 1; n <= 19; n++ {
		for pos := 0; pos < n; pos++ {
			for v := 0; v < 256; v++ {
				b := make([]byte, n)
				for i := range b {
					b[i] = 'a'
				}
				b[pos] = byte(v)
				if validTargetBytes(b) != naiveTarget(b) {
					t.Fatalf("target %q", b)
				}
				if validValueBytes(b) != naiveValue(b) {
					t.Fatalf("value %q", b)
				}
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		b := make([]byte, r.IntN(40))
		for j := range b {
			b[j] = byte(0x1e + r.IntN(0x64)) // mostly around the edges
			if r.IntN(20) == 0 {
				b[j] = byte(r.IntN(256))
			}
		}
		if validTargetBytes(b) != naiveTarget(b) || validValueBytes(b) != naiveValue(b) {
			t.Fatalf("mismatch on %q", b)
		}
	}
}

func TestValidHost(t *testing.T) {
	for _, h := range []string{"a", "example.com", "example.com:8080", "a:", "127.0.0.1:80", "[::1]", "[::1]:443", "xn--bcher-kva.de", "a%20b", "a_b~c!$&'()*+,;="} {
		if !validHost([]byte(h), false) {
			t.Errorf("%q rejected", h)
		}
	}
	for _, h := range []string{"", ":80", "a b", "a/b", "u@a", "a:8x", "[::1", "[]", "[::1]x", "a:80:90", "a?b", "a#b", "é"} {
		if validHost([]byte(h), false) {
			t.Errorf("%q accepted", h)
		}
	}
	if !validHost(nil, true) {
		t.Error("empty Host header rejected")
	}
}

func TestParseDecimal(t *testing.T) {
	for s, want := range map[string]int64{"0": 0, "007": 7, "9223372036854775807": 1<<63 - 1} {
		if n, ok := parseDecimal([]byte(s)); !ok || n != want {
			t.Errorf("%q: %d %v", s, n, ok)
		}
	}
	for _, s := range []string{"", "-1", "9223372036854775808", "99999999999999999999", "1a", " 1"} {
		if _, ok := parseDecimal([]byte(s)); ok {
			t.Errorf("%q accepted", s)
		}
	}
}

func TestGrowBytesBound(t *testing.T) {
	b := growBytes(nil, 10, 1000)
	if cap(b) < 10 || cap(b) > 1000 || len(b) != 0 {
		t.Fatal(len(b), cap(b))
	}
	b = b[:500]
	b[499] = 'x'
	b = growBytes(b, 400, 1000) // doubling would pass the bound
	if cap(b) != 1000 || len(b) != 500 || b[499] != 'x' {
		t.Fatalf("len %d cap %d, want 500 and exactly the bound", len(b), cap(b))
	}
	if c := growBytes(b, 100, 1000); cap(c) != 1000 || &c[0] != &b[0] {
		t.Fatal("grew although the capacity sufficed")
	}
}

func TestLooksLikeRequestLine(t *testing.T) {
	for line, want := range map[string]bool{
		"GET /":                      true,
		"GET / HTTP/1.1":             true,
		"GET /a HTTP/9":              true,
		"OPTIONS *":                  true,
		"GET http://example.com/ x":  true,
		"G@T / HTTP/1.1":             false,
		"INVALID CONNECTION PREFACE": false,
		"GET":                        false,
		"GET ":                       false,
		" GET /":                     false,
		"GET  /":                     false,
		"\x16\x03\x01":               false,
		"GET 1http://x":              false,
		"GET http:/x":                false,
	} {
		if got := LooksLikeRequestLine([]byte(line)); got != want {
			t.Errorf("%q: %v, want %v", line, got, want)
		}
	}
}
