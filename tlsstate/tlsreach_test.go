package tlsstate

import (
	"strings"
	"testing"
)

// On this Go, the buffer reach's self-test passes, and it is on. A Go
// release that renames, retypes or repurposes rawInput, input or hand
// fails here.
func TestBufferReachSelfTest(t *testing.T) {
	if err := probeTLSBuffers(tlsBufferFields); err != nil {
		t.Fatalf("self-test: %v; update tlsreach.go for this Go", err)
	}
	if _, err := NewServer(Config{TLS: serverTLS(t)}); err != nil {
		t.Fatal(err)
	}
	if ok, why := BufferReach(); !ok {
		t.Fatalf("BufferReach off: %s", why)
	}
}

// The self-test notices offsets that do not point at the buffers it
// expects: swapped fields, or a layout not found.
func TestBufferReachSelfTestDetects(t *testing.T) {
	o := tlsBufferFields
	for name, bad := range map[string]tlsBufferOffsets{
		"rawInput and hand swapped": {rawInput: o.hand, input: o.input, hand: o.rawInput, ok: true},
		"input at hand":             {rawInput: o.rawInput, input: o.hand, hand: o.hand, ok: true},
		"not found":                 {},
	} {
		if err := probeTLSBuffers(bad); err == nil {
			t.Errorf("%s: the self-test passed", name)
		} else {
			t.Logf("%s: %v", name, err)
		}
	}
}

// With the reach off, TrimBuffers keeps crypto/tls's buffers, and records
// still decrypt (Process asks crypto/tls instead of looking).
func TestBufferReachOff(t *testing.T) {
	was := bufferReach.off.Swap(true)
	t.Cleanup(func() { bufferReach.off.Store(was) })
	e := newEnv(t, Config{})
	cli, l, err := e.dial(clientTLS(t))
	if err != nil {
		t.Fatal(err)
	}
	echo(t, cli, "before")
	var trimmed, drained bool
	l.do(func(c *Conn) { trimmed, drained = c.TrimBuffers(), c.cryptoDrained() })
	if trimmed || drained {
		t.Errorf("with the reach off: TrimBuffers %v, cryptoDrained %v", trimmed, drained)
	}
	echo(t, cli, strings.Repeat("y", 40<<10))
}
