package websocket

import "testing"

// NextIsControl is true in front of a control frame and inside one's
// payload: not inside a data frame's payload (whose bytes may look like a
// control opcode), not while an event waits for Next.
func TestNextIsControl(t *testing.T) {
	mask := [4]byte{1, 2, 3, 4}
	r := NewReader(Config{})
	ping := AppendMaskedFrame(nil, OpPing, true, []byte("p"), mask)
	data := AppendMaskedFrame(nil, OpBinary, true, []byte{0x89, 0x89, 0x89, 0x89}, mask)
	if !r.NextIsControl(ping) || r.NextIsControl(data) || r.NextIsControl(nil) {
		t.Fatal("at a frame boundary")
	}
	// Part of the data frame: its payload is next, not a header.
	n := r.Feed(data[:7])
	if r.NextIsControl(append(data[n:7:7], 0x89)) {
		t.Fatal("inside a payload")
	}
	r.Feed(data[n:])
	if r.NextIsControl(ping) {
		t.Fatal("with the message waiting for Next")
	}
	if _, ok := r.Next(); !ok {
		t.Fatal("no message")
	}
	if !r.NextIsControl(ping) {
		t.Fatal("after Next")
	}
	// Inside a ping's payload: the rest belongs to the ping.
	long := AppendMaskedFrame(nil, OpPing, true, []byte("0123456789"), mask)
	n = r.Feed(long[:8])
	if !r.NextIsControl(long[n:]) {
		t.Fatal("inside a ping")
	}
}
