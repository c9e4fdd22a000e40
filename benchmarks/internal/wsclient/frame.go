// Package wsclient is the client side of RFC 6455 that the WebSocket load
// generator needs: the opening handshake on a connected socket, masked
// frames out and server frames in. It works on raw file descriptors, so
// that thousands of held connections cost the client only their sockets,
// and every server under test is driven by exactly the same code.
package wsclient

import (
	"encoding/binary"
	"errors"
)

// Opcodes of RFC 6455 section 5.2.
const (
	OpContinuation byte = 0x0
	OpText         byte = 0x1
	OpBinary       byte = 0x2
	OpClose        byte = 0x8
	OpPing         byte = 0x9
	OpPong         byte = 0xA
)

// MaxPayload bounds the payload of one frame the client accepts.
const MaxPayload = 1 << 20

// Errors of Parse.
var (
	ErrMaskedServerFrame = errors.New("wsclient: server frame is masked")
	ErrFrameTooLarge     = errors.New("wsclient: frame payload over MaxPayload")
)

// AppendMasked appends one final frame of opcode op carrying p, masked with
// key as a client must (RFC 6455 section 5.3).
func AppendMasked(dst []byte, op byte, p []byte, key [4]byte) []byte {
	dst = append(dst, 0x80|op)
	switch n := len(p); {
	case n < 126:
		dst = append(dst, 0x80|byte(n))
	case n <= 0xFFFF:
		dst = append(dst, 0x80|126, byte(n>>8), byte(n))
	default:
		dst = append(dst, 0x80|127)
		dst = binary.BigEndian.AppendUint64(dst, uint64(n))
	}
	dst = append(dst, key[:]...)
	for i, b := range p {
		dst = append(dst, b^key[i&3])
	}
	return dst
}

// Frame is one frame received from a server. Payload aliases the buffer
// given to Parse.
type Frame struct {
	Fin     bool
	Op      byte
	Payload []byte
}

// Parse reads one frame from the start of b. It returns the frame and the
// number of bytes it took, or n == 0 when b does not yet hold a whole frame.
func Parse(b []byte) (f Frame, n int, err error) {
	if len(b) < 2 {
		return f, 0, nil
	}
	if b[1]&0x80 != 0 {
		return f, 0, ErrMaskedServerFrame
	}
	f.Fin, f.Op = b[0]&0x80 != 0, b[0]&0x0F
	size, head := uint64(b[1]&0x7F), 2
	switch size {
	case 126:
		if len(b) < 4 {
			return f, 0, nil
		}
		size, head = uint64(binary.BigEndian.Uint16(b[2:])), 4
	case 127:
		if len(b) < 10 {
			return f, 0, nil
		}
		size, head = binary.BigEndian.Uint64(b[2:]), 10
	}
	if size > MaxPayload {
		return f, 0, ErrFrameTooLarge
	}
	end := head + int(size)
	if len(b) < end {
		return f, 0, nil
	}
	f.Payload = b[head:end]
	return f, end, nil
}
