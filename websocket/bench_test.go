package websocket

import (
	"bytes"
	"testing"
	"unsafe"
)

// BenchmarkReadSmallText parses 16-byte masked text frames, fed as a read
// loop would, 64 frames per Feed batch.
func BenchmarkReadSmallText(b *testing.B) {
	frame := AppendMaskedFrame(nil, OpText, true, []byte("0123456789abcdef"), testMask)
	batch := bytes.Repeat(frame, 64)
	buf := make([]byte, len(batch))
	r := NewReader(Config{})
	b.SetBytes(int64(len(frame)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i += 64 {
		copy(buf, batch)
		in := buf
		for len(in) > 0 {
			n := r.Feed(in)
			in = in[n:]
			if _, ok := r.Next(); !ok {
				b.Fatal("no event")
			}
		}
	}
}

// BenchmarkReadFragmented parses a text message in two 8-byte fragments
// (the message is assembled in a pooled buffer).
func BenchmarkReadFragmented(b *testing.B) {
	in0 := cat(AppendMaskedFrame(nil, OpText, false, []byte("01234567"), testMask), AppendMaskedFrame(nil, OpContinuation, true, []byte("89abcdef"), testMask))
	buf := make([]byte, len(in0))
	r := NewReader(Config{})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		copy(buf, in0)
		in := buf
		for len(in) > 0 {
			n := r.Feed(in)
			in = in[n:]
			if _, ok := r.Next(); !ok && n == 0 {
				b.Fatal("stuck")
			}
		}
	}
}

func benchMask(b *testing.B, size int) {
	p := make([]byte, size)
	b.SetBytes(int64(size))
	for i := 0; i < b.N; i++ {
		maskBytes(testMask, i&3, p)
	}
}

func BenchmarkUnmask16(b *testing.B)  { benchMask(b, 16) }
func BenchmarkUnmask1K(b *testing.B)  { benchMask(b, 1024) }
func BenchmarkUnmask64K(b *testing.B) { benchMask(b, 64<<10) }

// BenchmarkUnmaskBytewise is the naive loop, for comparison.
func BenchmarkUnmaskBytewise64K(b *testing.B) {
	p := make([]byte, 64<<10)
	b.SetBytes(int64(len(p)))
	for i := 0; i < b.N; i++ {
		for j := range p {
			p[j] ^= testMask[j&3]
		}
	}
}

func BenchmarkAppendFrame16(b *testing.B) {
	p := []byte("0123456789abcdef")
	dst := make([]byte, 0, 64)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		dst = AppendFrame(dst[:0], OpText, true, p)
	}
}

func BenchmarkAppendFrame64K(b *testing.B) {
	p := make([]byte, 64<<10)
	dst := make([]byte, 0, 70<<10)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		dst = AppendFrame(dst[:0], OpBinary, true, p)
	}
}

func BenchmarkValidUTF8_1K(b *testing.B) {
	p := bytes.Repeat([]byte("aé€😀abcdefgh"), 64)[:1024]
	b.SetBytes(int64(len(p)))
	for i := 0; i < b.N; i++ {
		var s utf8State
		s.feed(p)
	}
}

// TestReaderSize pins the size of an idle Reader.
func TestReaderSize(t *testing.T) {
	size := unsafe.Sizeof(Reader{})
	t.Logf("unsafe.Sizeof(Reader{}) = %d bytes", size)
	if size > 320 {
		t.Fatalf("Reader grew to %d bytes", size)
	}
	allocs := testing.AllocsPerRun(100, func() {
		r := NewReader(Config{})
		_ = r
	})
	if allocs > 1 {
		t.Fatalf("NewReader: %v allocations", allocs)
	}
}

// TestSmallFramesAllocateNothing: parsing whole frames costs no
// allocation in steady state.
func TestSmallFramesAllocateNothing(t *testing.T) {
	frame := AppendMaskedFrame(nil, OpText, true, []byte("0123456789abcdef"), testMask)
	buf := make([]byte, len(frame))
	r := NewReader(Config{})
	allocs := testing.AllocsPerRun(1000, func() {
		copy(buf, frame)
		r.Feed(buf)
		if ev, ok := r.Next(); !ok || len(ev.Payload) != 16 {
			t.Fatal("no event")
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per frame", allocs)
	}
}

var benchText = bytes.Repeat([]byte(`{"user":"ada","text":"hello, world","ts":1733300000}`), 20)[:1024]

// BenchmarkDeflaterNoTakeover compresses a 1 KiB JSON-like message with a
// pooled writer (server_no_context_takeover).
func BenchmarkDeflaterNoTakeover(b *testing.B) {
	d := NewDeflater(DeflateParams{ServerNoContextTakeover: true}, false)
	dst := make([]byte, 0, 2048)
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		dst = d.AppendMessage(dst[:0], OpText, benchText)
	}
}

// BenchmarkReadCompressed reads that message compressed, without
// context takeover (pooled flate reader).
func BenchmarkReadCompressed(b *testing.B) {
	p := DeflateParams{ClientNoContextTakeover: true}
	frame := NewDeflater(p, true).AppendMaskedMessage(nil, OpText, benchText, testMask)
	buf := make([]byte, len(frame))
	r := NewReader(Config{Deflate: &p})
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		copy(buf, frame)
		r.Feed(buf)
		if ev, ok := r.Next(); !ok || len(ev.Payload) != len(benchText) {
			b.Fatal("no message")
		}
	}
}
