package websocket

import (
	"bytes"
	"strings"
	"testing"
)

// The tests named Autobahn* follow the case groups of the Autobahn
// testsuite (fuzzingclient), at the level of one Reader: every input is
// fed whole and one byte at a time (feedBoth) and both must agree.

// Group 1: framing. Text and binary messages of lengths around the
// length-encoding boundaries, each in one frame.
func TestAutobahn1Framing(t *testing.T) {
	for _, n := range []int{0, 125, 126, 127, 128, 65535, 65536, 65537, 1 << 20} {
		payload := strings.Repeat("*", n)
		for _, op := range []Opcode{OpText, OpBinary} {
			in := cf(true, 0, op, []byte(payload))
			if want := FrameHeaderLen(n) + 4 + n; len(in) != want {
				t.Fatalf("len %d: frame is %d bytes, want %d", n, len(in), want)
			}
			var g got
			if n <= 65537 {
				g = feedBoth(t, Config{}, in)
			} else {
				g = feed(t, Config{}, in, false)
			}
			check(t, g, []wantEv{{EventMessage, op, payload}}, 0)
		}
	}
	// 1.1.8-style: a large message in chunks of 997 bytes.
	in := cf(true, 0, OpBinary, bytes.Repeat([]byte{0xFE}, 1<<20))
	r := NewReader(Config{})
	var ev Event
	for len(in) > 0 {
		k := min(997, len(in))
		n := r.Feed(in[:k])
		if e, ok := r.Next(); ok {
			ev = e
		}
		in = in[n:]
		if n == 0 && k == len(in) {
			break
		}
	}
	if ev.Kind != EventMessage || len(ev.Payload) != 1<<20 || ev.Payload[12345] != 0xFE {
		t.Fatalf("chunked 1 MiB: %v %d", ev.Kind, len(ev.Payload))
	}
}

// Group 2: pings and pongs.
func TestAutobahn2PingPong(t *testing.T) {
	bin125 := bytes.Repeat([]byte{0xFF, 0x00}, 63)[:125]
	cases := []struct {
		name string
		in   []byte
		evs  []wantEv
		fail CloseCode
	}{
		{"2.1 ping without payload", cf(true, 0, OpPing, nil), []wantEv{{EventPing, OpPing, ""}}, 0},
		{"2.2 ping with text payload", cf(true, 0, OpPing, []byte("Hello, world!")), []wantEv{{EventPing, OpPing, "Hello, world!"}}, 0},
		{"2.3 ping with binary payload", cf(true, 0, OpPing, []byte{0, 0xFF, 0xFE, 0xFD, 0xFC, 0xFB, 0, 0xFF}), []wantEv{{EventPing, OpPing, "\x00\xff\xfe\xfd\xfc\xfb\x00\xff"}}, 0},
		{"2.4 ping with 125 bytes", cf(true, 0, OpPing, bin125), []wantEv{{EventPing, OpPing, string(bin125)}}, 0},
		{"2.5 ping with 126 bytes", cf(true, 0, OpPing, make([]byte, 126)), nil, CloseProtocolError},
		{"2.6 ping with 125 bytes, any split", cf(true, 0, OpPing, bin125), []wantEv{{EventPing, OpPing, string(bin125)}}, 0},
		{"2.7 unsolicited pong", cf(true, 0, OpPong, nil), []wantEv{{EventPong, OpPong, ""}}, 0},
		{"2.8 unsolicited pong with payload", cf(true, 0, OpPong, []byte("unsolicited pong payload")), []wantEv{{EventPong, OpPong, "unsolicited pong payload"}}, 0},
		{"2.9 pong then ping", cat(cf(true, 0, OpPong, []byte("ping payload")), cf(true, 0, OpPing, []byte("ping payload"))),
			[]wantEv{{EventPong, OpPong, "ping payload"}, {EventPing, OpPing, "ping payload"}}, 0},
		{"2.10 ten pings", bytes.Repeat(cf(true, 0, OpPing, []byte("payload")), 10), repeatEv(wantEv{EventPing, OpPing, "payload"}, 10), 0},
		{"2.x ping with a 16-bit length of 126", append([]byte{0x89, 0xFE, 0, 126, 1, 2, 3, 4}, make([]byte, 126)...), nil, CloseProtocolError},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, feedBoth(t, Config{}, c.in), c.evs, c.fail) })
	}
}

func repeatEv(e wantEv, n int) []wantEv {
	out := make([]wantEv, n)
	for i := range out {
		out[i] = e
	}
	return out
}

// Group 3: reserved bits, with nothing negotiated. Frames before the bad
// one are still reported.
func TestAutobahn3ReservedBits(t *testing.T) {
	hello := []wantEv{{EventMessage, OpText, "Hello, world!"}}
	cases := []struct {
		name string
		in   []byte
		evs  []wantEv
	}{
		{"3.1 RSV2 on text", cf(true, 0x20, OpText, []byte("Hello, world!")), nil},
		{"3.2 RSV3 on text after a good one", cat(text("Hello, world!"), cf(true, 0x10, OpText, []byte("Hello, world!"))), hello},
		{"3.3 RSV2+RSV3 after a good one", cat(text("Hello, world!"), cf(true, 0x30, OpText, []byte("Hello, world!"))), hello},
		{"3.4 RSV1 on text (no deflate)", cf(true, 0x40, OpText, []byte("Hello, world!")), nil},
		{"3.5 RSV1+RSV3 on binary", cf(true, 0x50, OpBinary, []byte{1, 2, 3}), nil},
		{"3.6 RSV1+RSV2 on ping", cf(true, 0x60, OpPing, []byte("Hello")), nil},
		{"3.7 all RSV on close", cf(true, 0x70, OpClose, nil), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, feedBoth(t, Config{}, c.in), c.evs, CloseProtocolError) })
	}
}

// Group 4: opcodes. Reserved non-control (3-7) and control (11-15)
// opcodes fail, with or without payload, after a good frame.
func TestAutobahn4Opcodes(t *testing.T) {
	for op := Opcode(3); op <= 15; op++ {
		if op >= OpClose && op <= OpPong {
			continue
		}
		for _, payload := range [][]byte{nil, []byte("reserved opcode payload")} {
			in := cat(text("Hello"), cf(true, 0, op, payload), cf(true, 0, OpPing, nil))
			t.Run(op.String(), func(t *testing.T) {
				check(t, feedBoth(t, Config{}, in), []wantEv{{EventMessage, OpText, "Hello"}}, CloseProtocolError)
			})
		}
	}
}

// Group 5: fragmentation.
func TestAutobahn5Fragmentation(t *testing.T) {
	frag1, frag2 := []byte("fragment1"), []byte("fragment2")
	both := []wantEv{{EventMessage, OpText, "fragment1fragment2"}}
	ping := wantEv{EventPing, OpPing, "ping"}
	pong := wantEv{EventPong, OpPong, "pong"}
	cases := []struct {
		name string
		in   []byte
		evs  []wantEv
		fail CloseCode
	}{
		{"5.1 ping in 2 fragments", cat(cf(false, 0, OpPing, frag1), cf(true, 0, OpContinuation, frag2)), nil, CloseProtocolError},
		{"5.2 pong in 2 fragments", cat(cf(false, 0, OpPong, frag1), cf(true, 0, OpContinuation, frag2)), nil, CloseProtocolError},
		{"5.3 text in 2 fragments", cat(cf(false, 0, OpText, frag1), cf(true, 0, OpContinuation, frag2)), both, 0},
		{"5.6 text in 2 fragments, ping between", cat(cf(false, 0, OpText, frag1), cf(true, 0, OpPing, []byte("ping")), cf(true, 0, OpContinuation, frag2)),
			[]wantEv{ping, both[0]}, 0},
		{"5.6b pong between", cat(cf(false, 0, OpText, frag1), cf(true, 0, OpPong, []byte("pong")), cf(true, 0, OpContinuation, frag2)),
			[]wantEv{pong, both[0]}, 0},
		{"5.9 continuation without a start, FIN", cat(cf(true, 0, OpContinuation, []byte("non-continuation payload")), text("Hello")), nil, CloseProtocolError},
		{"5.10 continuation without a start, no FIN", cat(cf(false, 0, OpContinuation, []byte("non-continuation payload")), text("Hello")), nil, CloseProtocolError},
		{"5.12 continuation without a start, then text", cat(cf(false, 0, OpContinuation, frag1), cf(false, 0, OpText, frag2)), nil, CloseProtocolError},
		{"5.15 text, continuation, then a new text inside", cat(cf(false, 0, OpText, frag1), cf(true, 0, OpContinuation, frag2), cf(false, 0, OpContinuation, frag1), cf(false, 0, OpText, frag2)),
			both, CloseProtocolError},
		{"5.16 continuation after the message ended", cat(cf(true, 0, OpContinuation, frag1), cf(false, 0, OpText, frag1), cf(true, 0, OpContinuation, frag2)), nil, CloseProtocolError},
		{"5.17 text inside an unfinished text", cat(cf(false, 0, OpText, frag1), cf(true, 0, OpText, frag2)), nil, CloseProtocolError},
		{"5.18 binary inside an unfinished text", cat(cf(false, 0, OpText, frag1), cf(false, 0, OpBinary, frag2)), nil, CloseProtocolError},
		{"5.19 text in 5 fragments, pings between", cat(cf(false, 0, OpText, []byte("f1")), cf(false, 0, OpContinuation, []byte("f2")), cf(true, 0, OpPing, []byte("ping")),
			cf(false, 0, OpContinuation, []byte("f3")), cf(false, 0, OpContinuation, []byte("f4")), cf(true, 0, OpPing, []byte("ping")), cf(true, 0, OpContinuation, []byte("f5"))),
			[]wantEv{ping, ping, {EventMessage, OpText, "f1f2f3f4f5"}}, 0},
		{"5.x empty fragments", cat(cf(false, 0, OpBinary, nil), cf(false, 0, OpContinuation, nil), cf(true, 0, OpContinuation, nil)),
			[]wantEv{{EventMessage, OpBinary, ""}}, 0},
		{"5.x close in a fragmented message", cat(cf(false, 0, OpText, frag1), cf(true, 0, OpClose, ClosePayload(nil, CloseNormal, "bye"))),
			[]wantEv{{EventClose, OpClose, "\x03\xe8bye"}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, feedBoth(t, Config{}, c.in), c.evs, c.fail) })
	}
	// 5.4/5.5-style: a message in 1-byte fragments.
	var in []byte
	msg := "fragmented one byte at a time"
	for i := 0; i < len(msg); i++ {
		op := OpContinuation
		if i == 0 {
			op = OpText
		}
		in = append(in, cf(i == len(msg)-1, 0, op, []byte{msg[i]})...)
	}
	check(t, feedBoth(t, Config{}, in), []wantEv{{EventMessage, OpText, msg}}, 0)
}
