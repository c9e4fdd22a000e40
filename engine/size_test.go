//go:build unix

package engine

import (
	"testing"
	"unsafe"
)

// Every idle connection holds a conn: keep it in the 288-byte size class
// (it was 352 before the TLS state went out of line and the one-byte
// fields were put together).
func TestConnSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(conn{}); size > 288 {
		t.Fatalf("conn is %d bytes; the budget is 288 (the next size class is 320)", size)
	}
}
