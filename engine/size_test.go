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
// batch.go): WSConn's groups of fields each fill one 64-byte line; a
// batch stays in the 192-byte size class (three whole lines), with what a
// WebSocket message needs on its first, and the room for a small message
// that travels with it is two whole lines.
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
	var b batch
	if size := unsafe.Sizeof(b); size > 192 {
		t.Errorf("batch is %d bytes; want at most 192 (HTTP/2 takes one per stream)", size)
	}
	if end := unsafe.Offsetof(b.ev) + unsafe.Sizeof(b.ev); end > 64 || unsafe.Offsetof(b.small) >= 64 || unsafe.Offsetof(b.ws) >= 64 {
		t.Errorf("batch: ws, small and ev end at byte %d; want them all on the first line", end)
	}
	if size := unsafe.Sizeof(wsSmallPayload{}); size != 128 {
		t.Errorf("wsSmallPayload is %d bytes; want 128 (wsInlinePayload)", size)
	}
}
