package testkit

import "testing"

// FreeAddr never hands out an address twice, even when the kernel offers
// the same free port again.
func TestFreeAddrNeverRepeats(t *testing.T) {
	var h handedOut
	if !h.claim("127.0.0.1:1") || h.claim("127.0.0.1:1") || !h.claim("127.0.0.1:2") {
		t.Fatal("claim: want true, false, true")
	}
	seen := map[string]bool{}
	for range 200 {
		addr := FreeAddr(t)
		if seen[addr] {
			t.Fatalf("FreeAddr returned %s twice", addr)
		}
		seen[addr] = true
	}
}
