package http1

import (
	"encoding/binary"
	"unsafe"
)

// Byte classes used by the parser and the serializer.
var (
	// isTchar holds the RFC 9110 tchar bytes (token characters).
	isTchar = makeTable(func(c byte) bool {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			return true
		}
		switch c {
		case '!', '#', '$', '%', '&', '\'', '*', '+', '-', '.', '^', '_', '`', '|', '~':
			return true
		}
		return false
	})
	// isFieldByte holds the bytes allowed in a field value: HTAB, SP,
	// VCHAR and obs-text (everything but CTLs other than HTAB, and DEL).
	isFieldByte = makeTable(func(c byte) bool {
		return c == '\t' || (c >= 0x20 && c != 0x7f)
	})
	// isRegNameByte holds the bytes of an RFC 3986 reg-name: unreserved,
	// pct-encoded ('%' and hex digits) and sub-delims.
	isRegNameByte = makeTable(func(c byte) bool {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
			return true
		}
		switch c {
		case '-', '.', '_', '~', '%', '!', '$', '&', '\'', '(', ')', '*', '+', ',', ';', '=':
			return true
		}
		return false
	})
)

func makeTable(f func(byte) bool) (t [256]bool) {
	for i := range t {
		t[i] = f(byte(i))
	}
	return t
}

// bstr returns a string sharing b's memory. The caller guarantees b is not
// modified while the string is in use (the Request's "valid until Reset").
func bstr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// hasLess is non-zero when some byte of x is below n (n <= 128).
func hasLess(x, n uint64) uint64 { return (x - lo8*n) &^ x & hi8 }

// hasMore is non-zero when some byte of x is above n (n <= 127).
func hasMore(x, n uint64) uint64 { return ((x + lo8*(127-n)) | x) & hi8 }

// hasZero is non-zero when some byte of x is zero.
func hasZero(x uint64) uint64 { return (x - lo8) &^ x & hi8 }

// validTargetBytes reports whether every byte of b is visible ASCII (VCHAR).
// It tests eight bytes at a time.
func validTargetBytes(b []byte) bool {
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		if hasLess(x, 0x21)|hasMore(x, 0x7e) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}

// validValueBytes reports whether b holds only field-value bytes (no CTL
// except HTAB, no DEL; obs-text allowed). It tests eight bytes at a time and
// looks closer only at words holding a byte below 0x20 or a DEL.
func validValueBytes(b []byte) bool {
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		if hasLess(x, 0x20)|hasZero(x^(lo8*0x7f)) != 0 {
			for _, c := range b[:8] {
				if !isFieldByte[c] {
					return false
				}
			}
		}
		b = b[8:]
	}
	for _, c := range b {
		if !isFieldByte[c] {
			return false
		}
	}
	return true
}

// validToken reports whether b is a non-empty RFC 9110 token.
func validToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isTchar[c] {
			return false
		}
	}
	return true
}

// lower folds an ASCII upper-case letter to lower case.
func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// equalFold reports whether a and b are equal under ASCII case folding.
func equalFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		if a[i] != b[i] && lower(a[i]) != lower(b[i]) {
			return false
		}
	}
	return true
}

// equalFoldBytes is equalFold for a byte slice and a lower-case constant.
func equalFoldBytes(b []byte, lowerConst string) bool {
	if len(b) != len(lowerConst) {
		return false
	}
	for i, c := range b {
		if lower(c) != lowerConst[i] {
			return false
		}
	}
	return true
}

// trimOWS removes leading and trailing SP and HTAB.
func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// unhex returns the value of a hex digit, or -1.
func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// growBytes returns b with room for add more bytes, never giving it a
// capacity above bound (the caller guarantees len(b)+add <= bound).
func growBytes(b []byte, add, bound int) []byte {
	need := len(b) + add
	if need <= cap(b) {
		return b
	}
	c := max(2*cap(b), need, 512)
	if c > bound {
		c = max(bound, need)
	}
	nb := make([]byte, len(b), c)
	copy(nb, b)
	return nb
}
