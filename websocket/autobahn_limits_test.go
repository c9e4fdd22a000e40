package websocket

import (
	"bytes"
	"fmt"
	"testing"
)

// Group 9: limits and large messages (Autobahn's 9.x sends 64 KiB to
// 16 MiB messages, in one frame or many; here under small limits so the
// edges are exact).
func TestAutobahn9Limits(t *testing.T) {
	cfg := Config{MaxFrame: 1000, MaxMessage: 2500}
	k := func(n int) []byte { return bytes.Repeat([]byte{'k'}, n) }
	cases := []struct {
		name string
		in   []byte
		evs  []wantEv
		fail CloseCode
	}{
		{"frame at MaxFrame", bin(k(1000)), []wantEv{{EventMessage, OpBinary, string(k(1000))}}, 0},
		{"frame over MaxFrame", bin(k(1001)), nil, CloseMessageTooBig},
		{"ping is not a data frame", cf(true, 0, OpPing, k(125)), []wantEv{{EventPing, OpPing, string(k(125))}}, 0},
		{"message at MaxMessage", cat(cf(false, 0, OpText, k(1000)), cf(false, 0, OpContinuation, k(1000)), cf(true, 0, OpContinuation, k(500))),
			[]wantEv{{EventMessage, OpText, string(k(2500))}}, 0},
		{"message over MaxMessage", cat(cf(false, 0, OpText, k(1000)), cf(false, 0, OpContinuation, k(1000)), cf(true, 0, OpContinuation, k(501))),
			nil, CloseMessageTooBig},
		{"next message starts from zero", cat(cf(false, 0, OpText, k(1000)), cf(true, 0, OpContinuation, k(1000)), cf(false, 0, OpText, k(1000)), cf(true, 0, OpContinuation, k(1000))),
			[]wantEv{{EventMessage, OpText, string(k(2000))}, {EventMessage, OpText, string(k(2000))}}, 0},
	}
	// 2500 one-byte fragments, then one more.
	var frags []byte
	for i := 0; i < 2501; i++ {
		op := OpContinuation
		if i == 0 {
			op = OpBinary
		}
		frags = append(frags, cf(false, 0, op, []byte{'k'})...)
	}
	cases = append(cases, struct {
		name string
		in   []byte
		evs  []wantEv
		fail CloseCode
	}{"2501 one-byte fragments", frags, nil, CloseMessageTooBig})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, feedBoth(t, cfg, c.in), c.evs, c.fail) })
	}
}

// TestLimitSeenFromHeader: an oversized frame fails from its header alone,
// before any payload is sent.
func TestLimitSeenFromHeader(t *testing.T) {
	in := cf(true, 0, OpBinary, make([]byte, 70000))[:14]
	check(t, feedBoth(t, Config{MaxFrame: 65536}, in), nil, CloseMessageTooBig)
	in = cat(cf(false, 0, OpBinary, make([]byte, 60000)), cf(true, 0, OpContinuation, make([]byte, 60000))[:14])
	check(t, feedBoth(t, Config{MaxMessage: 100000}, in), nil, CloseMessageTooBig)
}

// TestBufferGrowsWithInput: a frame announcing 1 MiB with 100 bytes sent
// holds a buffer for about 100 bytes, not 1 MiB; a Reader between
// messages holds none.
func TestBufferGrowsWithInput(t *testing.T) {
	r := NewReader(Config{})
	in := cf(true, 0, OpBinary, make([]byte, 1<<20))
	n := r.Feed(in[:14+100])
	if n != 114 || r.Buffered() > 1024 {
		t.Fatalf("consumed %d, buffer %d bytes", n, r.Buffered())
	}
	max := 0
	rest := in[n:]
	for len(rest) > 0 {
		k := min(4096, len(rest))
		rest = rest[r.Feed(rest[:k]):]
		max = maxInt(max, r.Buffered())
		if r.Buffered() > 2*(len(in)-len(rest))+1024 {
			t.Fatalf("buffer %d after %d bytes", r.Buffered(), len(in)-len(rest))
		}
	}
	ev, ok := r.Next()
	if !ok || len(ev.Payload) != 1<<20 {
		t.Fatalf("no message")
	}
	if r.Feed(nil); r.Buffered() != 0 {
		t.Fatalf("idle reader holds %d bytes", r.Buffered())
	}
	// A fragmented message in progress keeps its buffer across a ping.
	in = cat(cf(false, 0, OpText, []byte("abc")), cf(true, 0, OpPing, []byte("p")), cf(true, 0, OpContinuation, []byte("def")))
	g := feedBoth(t, Config{}, in)
	check(t, g, []wantEv{{EventPing, OpPing, "p"}, {EventMessage, OpText, "abcdef"}}, 0)
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// Frame header rules that Autobahn's groups touch indirectly.
func TestFrameHeaderRules(t *testing.T) {
	cases := []struct {
		name   string
		in     []byte
		client bool
		fail   CloseCode
	}{
		{"unmasked frame from a client", AppendFrame(nil, OpText, true, []byte("hi")), false, CloseProtocolError},
		{"masked frame from a server", cf(true, 0, OpText, []byte("hi")), true, CloseProtocolError},
		{"16-bit length below 126", []byte{0x82, 0xFE, 0x00, 0x7D, 1, 2, 3, 4}, false, CloseProtocolError},
		{"64-bit length below 65536", []byte{0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 1, 2, 3, 4}, false, CloseProtocolError},
		{"64-bit length with the high bit", []byte{0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4}, false, CloseProtocolError},
		{"RSV1 on a continuation with deflate", cat(cf(false, 0x40, OpText, nil), cf(true, 0x40, OpContinuation, nil)), false, CloseProtocolError},
		{"close frame of 126 bytes", []byte{0x88, 0xFE, 0, 126, 1, 2, 3, 4}, false, CloseProtocolError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Client: c.client, Deflate: &DeflateParams{}}
			check(t, feedBoth(t, cfg, c.in), nil, c.fail)
		})
	}
	// A header that fails on its first two bytes fails before the rest
	// of the header arrives.
	r := NewReader(Config{})
	if r.Feed([]byte{0x83, 0x80}); r.Err() == nil {
		t.Fatal("reserved opcode not seen from two bytes")
	}
	// An incomplete header is left unconsumed.
	r = NewReader(Config{})
	in := cf(true, 0, OpBinary, make([]byte, 300))
	for i := 0; i < 8; i++ {
		if n := r.Feed(in[:i]); n != 0 || r.Err() != nil {
			t.Fatalf("%d header bytes: consumed %d, err %v", i, n, r.Err())
		}
	}
	if n := r.Feed(in[:8]); n != 8 {
		t.Fatalf("whole header: consumed %d", n)
	}
}

// TestFeedStopsAtEvent: Feed returns after each event; the rest is fed
// after Next; while an event is pending Feed consumes nothing.
func TestFeedStopsAtEvent(t *testing.T) {
	in := cat(text("one"), text("two"), cf(true, 0, OpPing, []byte("three")))
	r := NewReader(Config{})
	n := r.Feed(in)
	if n != len(text("one")) {
		t.Fatalf("first Feed consumed %d", n)
	}
	if m := r.Feed(in[n:]); m != 0 {
		t.Fatalf("Feed with an event pending consumed %d", m)
	}
	ev, _ := r.Next()
	if string(ev.Payload) != "one" {
		t.Fatalf("%q", ev.Payload)
	}
	n += r.Feed(in[n:])
	ev, _ = r.Next()
	n += r.Feed(in[n:])
	ev2, _ := r.Next()
	if string(ev.Payload) != "two" || ev2.Kind != EventPing || n != len(in) {
		t.Fatalf("%q %v %d", ev.Payload, ev2.Kind, n)
	}
}

// TestIdleAndReset: Idle is true exactly between frames with nothing
// kept, and a Reset Reader reads on from there as the old one would.
func TestIdleAndReset(t *testing.T) {
	in := cat(text("one"), cf(false, 0, OpBinary, []byte("frag")), cf(true, 0, OpPing, []byte("ping-split")), cf(true, 0, OpContinuation, []byte("ment")), text("two"))
	// Walk the input a byte at a time; at every point where Idle says so,
	// swap in a Reset Reader. The events must be those of one Reader.
	cfg := Config{MaxMessage: 100}
	r := NewReader(cfg)
	var evs []string
	var pending []byte
	idles := 0
	for i := 0; i < len(in); i++ {
		pending = append(pending, in[i])
		for {
			n := r.Feed(pending)
			pending = pending[n:]
			ev, ok := r.Next()
			if ok {
				evs = append(evs, ev.Kind.String()+":"+string(ev.Payload))
			}
			if !ok && n == 0 {
				break
			}
		}
		if r.Idle() {
			if r.Feed(nil); r.Buffered() != 0 {
				t.Fatalf("idle Reader holds %d bytes", r.Buffered())
			}
			idles++
			r.Reset(cfg)
		}
	}
	want := []string{"message:one", "ping:ping-split", "message:fragment", "message:two"}
	if fmt.Sprint(evs) != fmt.Sprint(want) || r.Err() != nil {
		t.Fatalf("events %q err %v", evs, r.Err())
	}
	if idles < 3 {
		t.Fatalf("Idle true %d times", idles)
	}
	// Not idle: inside a payload, a message, with an event
	// pending, after a failure, after a close, or holding a deflate window.
	for name, in := range map[string][]byte{
		"partial payload": text("hello")[:8],
		"open message":    cf(false, 0, OpText, []byte("a")),
		"event pending":   text("x"),
		"failed":          {0x83, 0x80},
		"closed":          closeFrame(CloseNormal, ""),
	} {
		r := NewReader(Config{})
		r.Feed(append([]byte(nil), in...))
		if name != "event pending" {
			r.Next()
		}
		if r.Idle() {
			t.Errorf("%s: Idle", name)
		}
	}
	// An incomplete header stays with the caller: the Reader is idle.
	r = NewReader(Config{})
	if n := r.Feed(text("x")[:3]); n != 0 || !r.Idle() {
		t.Errorf("partial header: consumed %d, Idle %v", n, r.Idle())
	}
	p := DeflateParams{}
	r = NewReader(Config{Deflate: &p})
	r.Feed(clientFrames(t, p, [][]byte{[]byte("kept window")}, OpText, 0))
	r.Next()
	if r.Idle() {
		t.Error("Idle with a context-takeover window")
	}
	p.ClientNoContextTakeover = true
	r = NewReader(Config{Deflate: &p})
	r.Feed(clientFrames(t, p, [][]byte{[]byte("no window")}, OpText, 0))
	r.Next()
	if !r.Idle() {
		t.Error("not Idle without context takeover")
	}
}
