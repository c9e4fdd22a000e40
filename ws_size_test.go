package gwist

import (
	"testing"
	"unsafe"
)

// The root package's WSConn holds the engine's (WSUpgrade.Conn): 448 bytes
// at most, and over 416, is Go's 448-byte size class, whose objects start
// on 64-byte lines, so the engine's line groups (engine/wsconn.go) stay
// aligned.
func TestWSConnSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(WSConn{}); size <= 416 || size > 448 {
		t.Fatalf("WSConn is %d bytes; want the 448-byte size class", size)
	}
}
