package websocket

import "encoding/binary"

// utf8State validates UTF-8 incrementally, so a text message split over
// frames (or over reads) fails at the first byte that cannot begin or
// continue a valid sequence (Autobahn's "fail fast" cases), while a
// sequence cut at a boundary waits for its next bytes. The zero value is
// the state at the start of a message.
type utf8State struct {
	need   uint8 // continuation bytes still expected
	lo, hi byte  // the range allowed for the next continuation byte
}

// feed validates p after what came before. It returns false at the first
// invalid byte: an unexpected continuation byte, an overlong form (C0, C1,
// E0 80-9F, F0 80-8F), a surrogate (ED A0-BF), a code point above U+10FFFF
// (F4 90-BF, F5-FF) or a missing continuation byte.
func (s *utf8State) feed(p []byte) bool {
	i := 0
	for i < len(p) {
		if s.need > 0 {
			c := p[i]
			if c < s.lo || c > s.hi {
				return false
			}
			s.need--
			s.lo, s.hi = 0x80, 0xBF
			i++
			continue
		}
		for i+8 <= len(p) && binary.LittleEndian.Uint64(p[i:])&0x8080808080808080 == 0 {
			i += 8
		}
		if i == len(p) {
			break
		}
		c := p[i]
		i++
		switch {
		case c < 0x80:
			continue
		case c < 0xC2: // continuation byte, or overlong C0/C1
			return false
		case c < 0xE0:
			s.need, s.lo, s.hi = 1, 0x80, 0xBF
		case c == 0xE0: // no overlong three-byte forms
			s.need, s.lo, s.hi = 2, 0xA0, 0xBF
		case c == 0xED: // no surrogates U+D800-DFFF
			s.need, s.lo, s.hi = 2, 0x80, 0x9F
		case c < 0xF0:
			s.need, s.lo, s.hi = 2, 0x80, 0xBF
		case c == 0xF0: // no overlong four-byte forms
			s.need, s.lo, s.hi = 3, 0x90, 0xBF
		case c < 0xF4:
			s.need, s.lo, s.hi = 3, 0x80, 0xBF
		case c == 0xF4: // nothing above U+10FFFF
			s.need, s.lo, s.hi = 3, 0x80, 0x8F
		default:
			return false
		}
	}
	return true
}

// complete reports whether the bytes so far end on a character boundary.
func (s *utf8State) complete() bool { return s.need == 0 }

// validUTF8 reports whether p alone is valid UTF-8.
func validUTF8(p []byte) bool {
	var s utf8State
	return s.feed(p) && s.complete()
}
