package tlsstate

import (
	"testing"
	"unsafe"
)

// Every idle TLS connection holds a Conn: keep it in the 288-byte size
// class (it was 384 before Timings were kept as offsets and the fields were
// packed).
func TestConnSizeClass(t *testing.T) {
	if size := unsafe.Sizeof(Conn{}); size > 288 {
		t.Fatalf("Conn is %d bytes; the budget is 288 (the next size class is 320)", size)
	}
}
