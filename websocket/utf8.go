package websocket

import "unicode/utf8"

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
// (F4 90-BF, F5-FF) or a missing continuation byte. A sequence left open
// by p's end is kept for the next call, its bytes so far checked.
func (s *utf8State) feed(p []byte) bool {
	// Finish a sequence the previous call left open.
	for s.need > 0 && len(p) > 0 {
		if !s.step(p[0]) {
			return false
		}
		p = p[1:]
	}
	if len(p) == 0 {
		return true
	}
	// The bulk goes to unicode/utf8 (fast on ASCII and multi-byte text);
	// a sequence cut by p's end (a lead byte in the last three without
	// all its bytes) goes byte by byte, so a prefix that can never become
	// valid still fails now.
	tail := len(p)
	for i := len(p) - 1; i >= 0 && i >= len(p)-3; i-- {
		if c := p[i]; c >= 0xC0 {
			if i+seqLen(c) > len(p) {
				tail = i
			}
			break
		} else if c < 0x80 {
			break
		}
	}
	if !utf8.Valid(p[:tail]) {
		return false
	}
	for _, c := range p[tail:] {
		if !s.step(c) {
			return false
		}
	}
	return true
}

// seqLen is the length of the sequence a lead byte (C0-FF) starts, as far
// as cutting is concerned (invalid leads are rejected by step).
func seqLen(c byte) int {
	switch {
	case c < 0xE0:
		return 2
	case c < 0xF0:
		return 3
	}
	return 4
}

// step takes one byte.
func (s *utf8State) step(c byte) bool {
	if s.need > 0 {
		if c < s.lo || c > s.hi {
			return false
		}
		s.need--
		s.lo, s.hi = 0x80, 0xBF
		return true
	}
	switch {
	case c < 0x80:
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
	return true
}

// complete reports whether the bytes so far end on a character boundary.
func (s *utf8State) complete() bool { return s.need == 0 }

// validUTF8 reports whether p alone is valid UTF-8.
func validUTF8(p []byte) bool { return utf8.Valid(p) }
