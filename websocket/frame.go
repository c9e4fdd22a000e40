package websocket

import (
	"encoding/binary"
	"unicode/utf8"
)

// Frame header bits (RFC 6455 section 5.2).
const (
	bitFIN  = 0x80
	bitRSV1 = 0x40
	bitRSV2 = 0x20
	bitRSV3 = 0x10
	bitMask = 0x80

	// MaxControlPayload is the largest payload of a control frame.
	MaxControlPayload = 125
	// MaxCloseReason is the longest reason a close frame can carry (its
	// payload less the two-byte code).
	MaxCloseReason = MaxControlPayload - 2
)

// FrameHeaderLen returns the length of an unmasked frame's header for a
// payload of payloadLen bytes: 2, 4 or 10. A masked frame has 4 more.
func FrameHeaderLen(payloadLen int) int {
	switch {
	case payloadLen <= 125:
		return 2
	case payloadLen <= 0xFFFF:
		return 4
	}
	return 10
}

// appendHeader appends a frame header; b0 holds FIN, RSV and the opcode.
func appendHeader(dst []byte, b0 byte, masked bool, n int) []byte {
	var m byte
	if masked {
		m = bitMask
	}
	switch {
	case n <= 125:
		return append(dst, b0, m|byte(n))
	case n <= 0xFFFF:
		return append(dst, b0, m|126, byte(n>>8), byte(n))
	}
	dst = append(dst, b0, m|127)
	return binary.BigEndian.AppendUint64(dst, uint64(n))
}

func firstByte(op Opcode, fin bool) byte {
	b := byte(op) & 0x0F
	if fin {
		b |= bitFIN
	}
	return b
}

// MaxHeaderLen is the longest header of an unmasked frame, as a server
// sends: two bytes, then a 64-bit payload length.
const MaxHeaderLen = 10

// AppendFrame appends one unmasked frame (as a server sends) with the
// given opcode, FIN bit and payload to dst and returns the extended
// slice. It does not check what it is given: control frames must have
// fin set and at most 125 bytes, and the payload of a text message must be
// valid UTF-8.
func AppendFrame(dst []byte, op Opcode, fin bool, payload []byte) []byte {
	dst = appendHeader(dst, firstByte(op, fin), false, len(payload))
	return append(dst, payload...)
}

// AppendHeader appends only the header of an unmasked frame carrying
// payloadLen bytes, for a caller that writes the payload from its own
// buffer (a vectored write, or one payload shared by many connections).
func AppendHeader(dst []byte, op Opcode, fin bool, payloadLen int) []byte {
	return appendHeader(dst, firstByte(op, fin), false, payloadLen)
}

// AppendMaskedFrame appends one frame masked with mask, as a client sends
// (RFC 6455 section 5.3; a real client picks a fresh random mask per
// frame). payload is not modified.
func AppendMaskedFrame(dst []byte, op Opcode, fin bool, payload []byte, mask [4]byte) []byte {
	dst = appendHeader(dst, firstByte(op, fin), true, len(payload))
	dst = append(dst, mask[:]...)
	start := len(dst)
	dst = append(dst, payload...)
	maskBytes(mask, 0, dst[start:])
	return dst
}

// ClosePayload appends a close frame's payload (the code, big-endian, then
// the reason cut to [MaxCloseReason] bytes at a character boundary) to
// dst. CloseNoStatus gives an empty payload (a close frame without a
// code).
func ClosePayload(dst []byte, code CloseCode, reason string) []byte {
	if code == CloseNoStatus {
		return dst
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(code))
	return append(dst, truncateReason(reason)...)
}

// AppendClose appends an unmasked close frame with code and reason (cut
// to [MaxCloseReason] bytes at a character boundary). CloseNoStatus sends
// a close frame without a payload.
func AppendClose(dst []byte, code CloseCode, reason string) []byte {
	var p [MaxControlPayload]byte
	return AppendFrame(dst, OpClose, true, ClosePayload(p[:0], code, reason))
}

// truncateReason cuts s to at most MaxCloseReason bytes without splitting
// a UTF-8 sequence.
func truncateReason(s string) string {
	if len(s) <= MaxCloseReason {
		return s
	}
	i := MaxCloseReason
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}
