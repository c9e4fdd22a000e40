//go:build unix

package engine

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// The ring hands out exactly what went in, in order, across wrap-arounds,
// with writes and reads of every size up to what fits.
func TestBodyRing(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{1, 7, 64, DefaultMaxBodyBuffered} {
		var g bodyRing
		g.alloc(size)
		var in, out []byte
		next := byte(0)
		for range 2000 {
			if free := size - g.n; free > 0 && r.IntN(2) == 0 {
				p := make([]byte, 1+r.IntN(free))
				for i := range p {
					p[i] = next
					next++
				}
				g.write(p)
				in = append(in, p...)
			} else if g.n > 0 {
				p := make([]byte, 1+r.IntN(size))
				n := g.read(p)
				if n != min(len(p), len(in)-len(out)) {
					t.Fatalf("size %d: read %d of %d with %d held", size, n, len(p), len(in)-len(out))
				}
				out = append(out, p[:n]...)
			}
			if g.n != len(in)-len(out) || !bytes.Equal(out, in[:len(out)]) {
				t.Fatalf("size %d: ring holds %d, want %d; out matches: %v", size, g.n, len(in)-len(out), bytes.Equal(out, in[:len(out)]))
			}
		}
		g.release()
	}
}
