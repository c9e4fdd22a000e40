//go:build unix

package engine

import (
	"testing"

	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"golang.org/x/sys/unix"
)

// BenchmarkWholeRequestH2Inline runs one HTTP/2 request (h2c, an inline
// handler) through the engine's own code on the test harness: HEADERS in,
// the handler, HEADERS and DATA framed, written to a socket pair and read
// back. The client's side (its HEADERS frame, the read) is in the figure
// too, the same for every build.
func BenchmarkWholeRequestH2Inline(b *testing.B) {
	h := newHarness(b, Config{Inline: true, H2C: true}, func(ex *Exchange) {
		_ = ex.Header.Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = ex.WriteString("Hello, World!")
	})
	p := h.dialH2(true)
	_ = p.fr.WriteWindowUpdate(0, 1<<31-1-65535) // the connection's window never runs out
	p.flush()
	var block []byte
	{
		var hb bytesWriter
		enc := hpack.NewEncoder(&hb)
		for _, f := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":path", "/"}, {":authority", "x"}} {
			_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
		}
		block = hb
	}
	buf := make([]byte, 64<<10)
	drain := func() int {
		n := 0
		for {
			k, _ := unix.Read(int(p.f.Fd()), buf)
			if k <= 0 {
				return n
			}
			n += k
		}
	}
	drain()
	id := uint32(1)
	b.ReportAllocs()
	for b.Loop() {
		p.out.Reset()
		_ = p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: id, BlockFragment: block, EndHeaders: true, EndStream: true})
		p.fc.in = append(p.fc.in, p.out.Bytes()...)
		h.srv.onTraffic(p.fc)
		h.run()
		if drain() == 0 {
			b.Fatal("no response")
		}
		id += 2
	}
}

// bytesWriter is an io.Writer that appends to itself.
type bytesWriter []byte

func (w *bytesWriter) Write(p []byte) (int, error) { *w = append(*w, p...); return len(p), nil }
