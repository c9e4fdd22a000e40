package websocket

// Opcode is a frame's opcode (RFC 6455 section 5.2).
type Opcode uint8

// The opcodes RFC 6455 defines; 3-7 and 11-15 are reserved and rejected.
const (
	OpContinuation Opcode = 0
	OpText         Opcode = 1
	OpBinary       Opcode = 2
	OpClose        Opcode = 8
	OpPing         Opcode = 9
	OpPong         Opcode = 10
)

// IsControl reports whether op is a control opcode (close, ping, pong or a
// reserved control opcode 11-15).
func (op Opcode) IsControl() bool { return op&0x8 != 0 }

// String returns the opcode's name, or "opcode(N)" for a reserved one.
func (op Opcode) String() string {
	switch op {
	case OpContinuation:
		return "continuation"
	case OpText:
		return "text"
	case OpBinary:
		return "binary"
	case OpClose:
		return "close"
	case OpPing:
		return "ping"
	case OpPong:
		return "pong"
	}
	return "opcode(" + itoa(int(op)) + ")"
}

// known reports whether op is one RFC 6455 defines.
func (op Opcode) known() bool {
	return op <= OpBinary || (op >= OpClose && op <= OpPong)
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
