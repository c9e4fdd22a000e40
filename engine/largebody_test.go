//go:build unix

package engine

import (
	"bytes"
	"testing"
	"unsafe"
)

// GrowBody keeps what the body holds, and a body past maxPooledBody gets a
// size-class buffer that the released Exchange gives back for the next
// one. (sync.Pool drops a share of what it is given under the race
// detector, so reuse is counted, not required every time.)
func TestGrowBodyReusesItsBuffers(t *testing.T) {
	ex := getExchange(nil)
	ex.Body = append(ex.Body, "head"...)
	ex.GrowBody(200 << 10)
	if !bytes.Equal(ex.Body, []byte("head")) || cap(ex.Body) != 256<<10 {
		t.Fatalf("after GrowBody: %q, cap %d", ex.Body, cap(ex.Body))
	}
	prev := unsafe.SliceData(ex.Body)
	putExchange(ex)
	reused := 0
	for range 50 {
		ex := getExchange(nil)
		ex.GrowBody(150 << 10)
		if p := unsafe.SliceData(ex.Body); p == prev {
			reused++
		} else {
			prev = p
		}
		ex.Body = append(ex.Body, make([]byte, 150<<10)...)
		putExchange(ex)
	}
	if reused < 25 {
		t.Fatalf("the next Exchange got the released buffer in %d of 50 rounds", reused)
	}
}

// A buffer GrowBody did not hand out never enters the pools, even of a
// class's size: a handler may assign a slice it keeps (and h2 takes the
// body's buffer for its own queue, setting Body to nil).
func TestGrowBodyNeverPoolsForeignBuffers(t *testing.T) {
	mine := make([]byte, 0, 256<<10)
	for range 20 {
		ex := getExchange(nil)
		ex.GrowBody(200 << 10)
		ex.Body = mine // replaces the pooled buffer GrowBody gave
		putExchange(ex)
	}
	for range 50 {
		ex := getExchange(nil)
		ex.GrowBody(200 << 10)
		if unsafe.SliceData(ex.Body) == unsafe.SliceData(mine) {
			t.Fatal("GrowBody handed out a buffer a handler had assigned")
		}
		putExchange(ex)
	}
}

// Bodies beyond the largest class are allocated and not pooled.
func TestGrowBodyBeyondClasses(t *testing.T) {
	if largeBodyClass(maxPooledBody+1) != 0 || largeBodyClass(128<<10) != 0 || largeBodyClass(128<<10+1) != 1 ||
		largeBodyClass(16<<20) != largeBodyMaxShift-largeBodyMinShift || largeBodyClass(16<<20+1) != -1 {
		t.Fatal("size classes")
	}
	ex := getExchange(nil)
	ex.GrowBody(17 << 20)
	if cap(ex.Body) < 17<<20 || ex.large != nil {
		t.Fatalf("cap %d, pooled %v", cap(ex.Body), ex.large != nil)
	}
	putExchange(ex)
}
