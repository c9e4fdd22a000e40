package websocket

import "encoding/binary"

// maskBytes XORs b with key, starting at key offset pos (0-3), and returns
// the offset for the byte after b. Masking and unmasking are the same
// operation (RFC 6455 section 5.3). Bytes go 8 at a time, 32 in the main
// loop.
func maskBytes(key [4]byte, pos int, b []byte) int {
	pos &= 3
	if len(b) >= 8 {
		k32 := uint64(key[pos&3]) | uint64(key[(pos+1)&3])<<8 | uint64(key[(pos+2)&3])<<16 | uint64(key[(pos+3)&3])<<24
		k := k32 | k32<<32
		for len(b) >= 32 {
			binary.LittleEndian.PutUint64(b, binary.LittleEndian.Uint64(b)^k)
			binary.LittleEndian.PutUint64(b[8:], binary.LittleEndian.Uint64(b[8:])^k)
			binary.LittleEndian.PutUint64(b[16:], binary.LittleEndian.Uint64(b[16:])^k)
			binary.LittleEndian.PutUint64(b[24:], binary.LittleEndian.Uint64(b[24:])^k)
			b = b[32:]
		}
		for len(b) >= 8 {
			binary.LittleEndian.PutUint64(b, binary.LittleEndian.Uint64(b)^k)
			b = b[8:]
		}
	}
	for i := range b {
		b[i] ^= key[pos]
		pos = (pos + 1) & 3
	}
	return pos
}
