package tlsstate

import "sync"

// Buffers for ciphertext are pooled: a connection holds one only while it
// has bytes in it, so idle connections cost none.
//
// The pool holds pointers to fixed arrays rather than *[]byte: giving a
// slice back through a *[]byte allocates a new slice header per Put, which
// at one Put per request was a third of HTTPS keep-alive's allocations.
// Only buffers of exactly poolBufSize go back; one grown by append is left
// to the GC.
const poolBufSize = 16 << 10

type poolBuf = [poolBufSize]byte

var bufPool = sync.Pool{New: func() any { return new(poolBuf) }}

func getBuf() []byte { return bufPool.Get().(*poolBuf)[:0] }

func putBuf(b []byte) {
	if cap(b) != poolBufSize {
		return
	}
	bufPool.Put((*poolBuf)(b[:poolBufSize]))
}
