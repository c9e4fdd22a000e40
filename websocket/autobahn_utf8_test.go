package websocket

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// utf8Cases are byte sequences from Autobahn's group 6 (after Markus
// Kuhn's UTF-8 decoder stress test) with whether they are valid UTF-8.
var utf8Cases = []struct {
	name  string
	s     string
	valid bool
}{
	{"6.1 empty", "", true},
	{"6.2 valid", "Hello-µ@ßöäüàá-UTF-8!!", true},
	{"6.5 kosme", "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5", true},
	{"6.6 kosme then F4 90", "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited", false},
	{"6.7 first 1-byte", "\x00", true},
	{"6.7 first 2-byte", "\xc2\x80", true},
	{"6.7 first 3-byte", "\xe0\xa0\x80", true},
	{"6.7 first 4-byte", "\xf0\x90\x80\x80", true},
	{"6.8 first 5-byte", "\xf8\x88\x80\x80\x80", false},
	{"6.8 first 6-byte", "\xfc\x84\x80\x80\x80\x80", false},
	{"6.9 last 1-byte", "\x7f", true},
	{"6.9 last 2-byte", "\xdf\xbf", true},
	{"6.9 last 3-byte", "\xef\xbf\xbf", true},
	{"6.9 last 4-byte U+10FFFF", "\xf4\x8f\xbf\xbf", true},
	{"6.10 above U+10FFFF", "\xf4\x90\x80\x80", false},
	{"6.10 5-byte", "\xfb\xbf\xbf\xbf\xbf", false},
	{"6.11 U+D7FF", "\xed\x9f\xbf", true},
	{"6.11 U+E000", "\xee\x80\x80", true},
	{"6.11 U+FFFD", "\xef\xbf\xbd", true},
	{"6.12 lone continuation 80", "\x80", false},
	{"6.12 lone continuation bf", "\xbf", false},
	{"6.12 continuations", "\x80\xbf\x80\xbf", false},
	{"6.13 lone start C0 then space", "\xc0 ", false},
	{"6.13 lone start E0 then space", "\xe0 ", false},
	{"6.14 2-byte missing last", "\xdf", false},
	{"6.14 3-byte missing last", "\xef\xbf", false},
	{"6.14 4-byte missing last", "\xf7\xbf\xbf", false},
	{"6.16 FE", "\xfe", false},
	{"6.16 FF", "\xff", false},
	{"6.16 FEFEFFFF", "\xfe\xfe\xff\xff", false},
	{"6.17 overlong slash 2", "\xc0\xaf", false},
	{"6.17 overlong slash 3", "\xe0\x80\xaf", false},
	{"6.17 overlong slash 4", "\xf0\x80\x80\xaf", false},
	{"6.18 max overlong 2", "\xc1\xbf", false},
	{"6.18 max overlong 3", "\xe0\x9f\xbf", false},
	{"6.18 max overlong 4", "\xf0\x8f\xbf\xbf", false},
	{"6.19 overlong NUL 2", "\xc0\x80", false},
	{"6.19 overlong NUL 3", "\xe0\x80\x80", false},
	{"6.20 surrogate D800", "\xed\xa0\x80", false},
	{"6.20 surrogate DBFF", "\xed\xaf\xbf", false},
	{"6.20 surrogate DC00", "\xed\xb0\x80", false},
	{"6.20 surrogate DFFF", "\xed\xbf\xbf", false},
	{"6.21 surrogate pair", "\xed\xa0\x80\xed\xb0\x80", false},
	{"6.22 noncharacter U+FFFE", "\xef\xbf\xbe", true},
	{"6.22 noncharacter U+FFFF", "\xef\xbf\xbf", true},
	{"6.22 noncharacter U+10FFFE", "\xf4\x8f\xbf\xbe", true},
	{"6.23 U+FFFD", "\xef\xbf\xbd", true},
	{"6.x ascii run then bad", strings.Repeat("a", 37) + "\xc3\x28", false},
	{"6.x long mixed", strings.Repeat("aé€😀", 50), true},
}

// Group 6: UTF-8 handling. Each case as a single text frame, split into
// two fragments at every byte, and in one fragment per byte; a text close
// reason follows the same rule (checked in group 7).
func TestAutobahn6UTF8(t *testing.T) {
	for _, c := range utf8Cases {
		t.Run(c.name, func(t *testing.T) {
			if utf8.ValidString(c.s) != c.valid {
				t.Fatalf("case table disagrees with unicode/utf8")
			}
			fail := CloseCode(0)
			var evs []wantEv
			if c.valid {
				evs = []wantEv{{EventMessage, OpText, c.s}}
			} else {
				fail = CloseInvalidPayload
			}
			check(t, feedBoth(t, Config{}, text(c.s)), evs, fail)
			for i := 0; i <= len(c.s); i++ {
				in := cat(cf(false, 0, OpText, []byte(c.s[:i])), cf(true, 0, OpContinuation, []byte(c.s[i:])))
				check(t, feedBoth(t, Config{}, in), evs, fail)
			}
			var frames []byte
			for i := 0; i < len(c.s); i++ {
				op := OpContinuation
				if i == 0 {
					op = OpText
				}
				frames = append(frames, cf(i == len(c.s)-1, 0, op, []byte{c.s[i]})...)
			}
			if len(c.s) > 0 {
				check(t, feedBoth(t, Config{}, frames), evs, fail)
			}
			// The same bytes in a binary message are not checked.
			check(t, feedBoth(t, Config{}, bin([]byte(c.s))), []wantEv{{EventMessage, OpBinary, c.s}}, 0)
		})
	}
}

// TestAutobahn6FailFast: an invalid sequence fails in the fragment where
// it becomes invalid (Autobahn 6.4), before the message ends: the Reader
// fails without the rest, here never sent.
func TestAutobahn6FailFast(t *testing.T) {
	for _, c := range []struct {
		name, first string
	}{
		{"6.4.1 F4 90 after kosme", "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xf4\x90"},
		{"6.4.2 F4 90 80 80 whole", "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xf4\x90\x80\x80"},
		{"6.4.3 F4 alone then 90", "\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xf4"},
		{"overlong start C0", "abc\xc0"},
		{"surrogate ED A0", "abc\xed\xa0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := cf(false, 0, OpText, []byte(c.first))
			if strings.HasSuffix(c.first, "\xf4") {
				// F4 alone is a valid start: it fails at the next
				// fragment's first byte, 90, before its other bytes.
				in = cat(in, cf(false, 0, OpContinuation, []byte("\x90\x80\x80")))
			}
			check(t, feedBoth(t, Config{}, in), nil, CloseInvalidPayload)
		})
	}
	// Within one frame: a frame of 1 MiB whose 3rd byte is invalid fails
	// once those bytes arrive, without the rest of the frame.
	big := make([]byte, 1<<20)
	big[2] = 0xFF
	in := cf(true, 0, OpText, big)[:20]
	check(t, feedBoth(t, Config{}, in), nil, CloseInvalidPayload)
}

// TestUTF8StateMatchesStdlib compares the incremental validator with
// unicode/utf8 on every 1- and 2-byte input and a set of 3- and 4-byte
// prefixes, split at every point.
func TestUTF8StateMatchesStdlib(t *testing.T) {
	check := func(b []byte) {
		want := utf8.Valid(b)
		for i := 0; i <= len(b); i++ {
			var s utf8State
			got := s.feed(b[:i]) && s.feed(b[i:]) && s.complete()
			if got != want {
				t.Fatalf("%x split at %d: %v, want %v", b, i, got, want)
			}
		}
	}
	for a := 0; a < 256; a++ {
		check([]byte{byte(a)})
		for b := 0; b < 256; b++ {
			check([]byte{byte(a), byte(b)})
		}
	}
	for _, lead := range []byte{0xE0, 0xE1, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5} {
		for b := 0; b < 256; b++ {
			for _, c := range []byte{0x00, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0} {
				check([]byte{lead, byte(b), c})
				check([]byte{lead, byte(b), c, 0x80})
				check([]byte{'x', lead, byte(b), c, 0xBF, 'y'})
			}
		}
	}
}
