package tlsstate

import "sync"

// Buffers for ciphertext are pooled: a connection holds one only while it
// has bytes in it, so idle connections cost none.
const (
	poolBufSize = 16 << 10 // what the pool hands out
	poolBufMax  = 64 << 10 // larger buffers are left to the GC
)

var bufPool = sync.Pool{New: func() any {
	b := make([]byte, 0, poolBufSize)
	return &b
}}

func getBuf() []byte { return (*bufPool.Get().(*[]byte))[:0] }

func putBuf(b []byte) {
	if b == nil || cap(b) > poolBufMax {
		return
	}
	b = b[:0]
	bufPool.Put(&b)
}
