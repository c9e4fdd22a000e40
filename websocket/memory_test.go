package websocket

import (
	"compress/flate"
	"runtime"
	"testing"
)

// heapPer returns the heap bytes each of n values made by mk retains.
func heapPer(n int, mk func() any) float64 {
	keep := make([]any, n)
	runtime.GC()
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	for i := range keep {
		keep[i] = mk()
	}
	runtime.GC()
	runtime.ReadMemStats(&b)
	runtime.KeepAlive(keep)
	return float64(b.HeapAlloc-a.HeapAlloc) / float64(n)
}

// TestDeflaterMemory measures what permessage-deflate state costs per
// connection (logged; run with -v) and pins the cases that must cost
// nothing between messages.
func TestDeflaterMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("heap measurement")
	}
	msg := []byte("a message that goes through the compressor and the inflater")
	for _, level := range []int{flate.BestSpeed, flate.DefaultCompression, flate.HuffmanOnly} {
		takeover := heapPer(20, func() any {
			d := NewDeflater(DeflateParams{Level: level}, false)
			d.AppendMessage(nil, OpText, msg)
			return d
		})
		pooled := heapPer(5000, func() any { // the pool's one Writer spreads over them
			d := NewDeflater(DeflateParams{Level: level, ServerNoContextTakeover: true}, false)
			d.AppendMessage(nil, OpText, msg)
			return d
		})
		t.Logf("Deflater level %d: %.0f bytes per connection with context takeover, %.0f without", level, takeover, pooled)
		if pooled > 512 {
			t.Errorf("a no-context-takeover Deflater holds %.0f bytes between messages", pooled)
		}
	}
	wire := clientFrames(t, DeflateParams{}, [][]byte{msg}, OpText, 0)
	for _, p := range []DeflateParams{{}, {ClientNoContextTakeover: true}, {ClientMaxWindowBits: 10}} {
		per := heapPer(200, func() any {
			r := NewReader(Config{Deflate: &p})
			in := append([]byte(nil), wire...)
			r.Feed(in)
			r.Next()
			r.Feed(nil)
			return r
		})
		t.Logf("Reader with deflate %+v after a message: %.0f bytes per connection", p, per)
		limit := 1024.0
		if !p.ClientNoContextTakeover {
			bits := p.ClientMaxWindowBits
			if bits == 0 {
				bits = 15
			}
			limit += float64(int(1) << max(9, bits))
		}
		if per > limit {
			t.Errorf("Reader with %+v holds %.0f bytes, want at most %.0f", p, per, limit)
		}
	}
	idle := heapPer(1000, func() any { return NewReader(Config{}) })
	t.Logf("idle Reader: %.0f bytes", idle)
	if idle > 320 {
		t.Errorf("idle Reader: %.0f bytes", idle)
	}
}
