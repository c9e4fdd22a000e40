//go:build unix

package engine

import (
	"math/rand/v2"
	"testing"
)

// The ring hands out exactly what went in, in order, across wrap-arounds,
// with writes and reads of every size up to what fits. Bytes are a
// counter, so each byte read says which one it should be.
func TestBodyRing(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{1, 7, 64, DefaultMaxBodyBuffered} {
		var g bodyRing
		g.alloc(size)
		scratch := make([]byte, size)
		var wrote, read int
		for range 2000 {
			if free := size - g.n; free > 0 && r.IntN(2) == 0 {
				p := scratch[:1+r.IntN(free)]
				for i := range p {
					p[i] = byte(wrote + i)
				}
				g.write(p)
				wrote += len(p)
			} else if g.n > 0 {
				p := scratch[:1+r.IntN(size)]
				n := g.read(p)
				if n != min(len(p), wrote-read) {
					t.Fatalf("size %d: read %d of %d with %d held", size, n, len(p), wrote-read)
				}
				for i, b := range p[:n] {
					if b != byte(read+i) {
						t.Fatalf("size %d: byte %d is %d, want %d", size, read+i, b, byte(read+i))
					}
				}
				read += n
			}
			if g.n != wrote-read {
				t.Fatalf("size %d: ring holds %d, want %d", size, g.n, wrote-read)
			}
		}
		g.release()
	}
}
