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

// A WebSocket message's hand-off touches few cache lines (wsconn.go,
// batch.go): WSConn's groups of fields each fill one 64-byte line, and a
// batch, with a small message's payload in it, is 320 bytes, a size class
// of whole lines.
func TestWebSocketHotLines(t *testing.T) {
	var ws WSConn
	groups := []struct {
		name     string
		at, want uintptr
	}{
		{"the loop's (r)", unsafe.Offsetof(ws.r), 64},
		{"under mu (mu)", unsafe.Offsetof(ws.mu), 128},
		{"the writers' (buf)", unsafe.Offsetof(ws.buf), 192},
		{"the seldom used (nc)", unsafe.Offsetof(ws.nc), 256},
	}
	for _, g := range groups {
		if g.at != g.want {
			t.Errorf("WSConn's group %s starts at byte %d, want %d (one 64-byte line per group)", g.name, g.at, g.want)
		}
	}
	if size := unsafe.Sizeof(batch{}); size <= 288 || size > 320 {
		t.Fatalf("batch is %d bytes; want it in the 320-byte size class (wsInlinePayload)", size)
	}
}
