//go:build unix

package engine

import (
	"math/bits"
	"slices"
	"sync"
	"unsafe"
)

// Response bodies over maxPooledBody (a file read whole by an inline App,
// say) come from size-class pools rather than a fresh allocation per
// response: a fresh megabyte is cleared, faulted in and collected for
// every request, which cost an inline App serving a 1 MiB file most of its
// CPU. Only a buffer GrowBody handed out goes back, and only while
// ex.Body still starts at it (h2 may have taken it, or a handler may
// have assigned a slice of its own): putExchange checks. Like any
// sync.Pool, the pools empty themselves across garbage collections, so a
// burst of large responses does not pin its memory.

const (
	// largeBodyMinShift: the smallest class, 128 KiB, is the first power
	// of two above maxPooledBody.
	largeBodyMinShift = 17
	// largeBodyMaxShift: the largest class, 16 MiB; larger bodies are
	// allocated and left to the GC as before.
	largeBodyMaxShift = 24
)

var largeBodies [largeBodyMaxShift - largeBodyMinShift + 1]sync.Pool // *[]byte

// largeBodyClass returns the pool index whose buffers hold n bytes, or -1
// when n is beyond the largest class.
func largeBodyClass(n int) int {
	shift := max(bits.Len(uint(n-1)), largeBodyMinShift)
	if shift > largeBodyMaxShift {
		return -1
	}
	return shift - largeBodyMinShift
}

// takeLargeBuf returns an empty buffer from the pools that holds n bytes,
// or nil when n is beyond the largest class.
func takeLargeBuf(n int) []byte {
	class := largeBodyClass(n)
	if class < 0 {
		return nil
	}
	if p, _ := largeBodies[class].Get().(*[]byte); p != nil {
		return (*p)[:0]
	}
	return make([]byte, 0, 1<<(class+largeBodyMinShift))
}

// putLargeBuf gives buf (one takeLargeBuf returned, which nothing reads or
// writes any more) back to its pool.
func putLargeBuf(buf []byte) {
	buf = buf[:cap(buf)]
	if class := largeBodyClass(len(buf)); class >= 0 && len(buf) == 1<<(class+largeBodyMinShift) {
		largeBodies[class].Put(&buf)
	}
}

// GrowBody makes room in ex.Body for n more bytes, as slices.Grow does, so
// that a caller can read straight into ex.Body[len:len+n]. A body that
// then exceeds maxPooledBody gets a buffer from the size-class pools,
// which the Exchange gives back when it is released.
func (ex *Exchange) GrowBody(n int) {
	need := len(ex.Body) + n
	if n <= 0 || need <= cap(ex.Body) {
		return
	}
	var buf []byte
	if need > maxPooledBody {
		buf = takeLargeBuf(need)
	}
	if buf == nil {
		ex.Body = slices.Grow(ex.Body, n)
		return
	}
	buf = append(buf, ex.Body...)
	ex.releaseLargeBody()
	ex.Body, ex.large = buf, unsafe.SliceData(buf)
}

// takeLargeBody hands ex.Body over to a new owner (an HTTP/2 stream's
// queue), reporting whether GrowBody gave it from the pools, which the
// new owner then gives back. ex.Body is nil after it.
func (ex *Exchange) takeLargeBody() (body []byte, pooled bool) {
	body, pooled = ex.Body, ex.large != nil && unsafe.SliceData(ex.Body) == ex.large
	ex.Body, ex.large = nil, nil
	return body, pooled
}

// releaseLargeBody gives ex.Body's buffer back to its pool if GrowBody
// handed it out and ex.Body still starts at it; either way the Exchange
// forgets it.
func (ex *Exchange) releaseLargeBody() {
	if ex.large == nil {
		return
	}
	if unsafe.SliceData(ex.Body) == ex.large {
		putLargeBuf(ex.Body)
		ex.Body = nil
	}
	ex.large = nil
}
