package websocket

import (
	"bytes"
	"compress/flate"
	"math/rand"
	"strings"
	"testing"
)

// deflateMessages are the payloads of the group 12/13 round trips:
// Autobahn sends text and binary messages of 16 bytes to 128 KiB, some
// compressible, some not.
func deflateMessages() [][]byte {
	rng := rand.New(rand.NewSource(1))
	random := make([]byte, 70000)
	rng.Read(random)
	var out [][]byte
	for _, n := range []int{0, 1, 16, 64, 256, 1024, 4096, 32768, 65536, 131072} {
		out = append(out, bytes.Repeat([]byte("Hello, permessage-deflate! "), n/27+1)[:n])
	}
	out = append(out, random[:16], random[:1000], random[:70000])
	return out
}

// clientFrames compresses msgs as a client would (masked) and returns the
// wire bytes; fragment > 0 splits each compressed message into frames of
// that many bytes (RSV1 on the first only).
func clientFrames(t testing.TB, p DeflateParams, msgs [][]byte, op Opcode, fragment int) []byte {
	t.Helper()
	d := NewDeflater(p, true)
	var wire []byte
	for _, m := range msgs {
		f := d.AppendMaskedMessage(nil, op, m, testMask)
		if fragment <= 0 {
			wire = append(wire, f...)
			continue
		}
		// Unmask and reframe the compressed payload.
		body := compressedBody(f)
		first := true
		for {
			k := min(fragment, len(body))
			op2 := OpContinuation
			var rsv byte
			if first {
				op2, rsv = op, 0x40
			}
			wire = append(wire, cf(k == len(body), rsv, op2, body[:k])...)
			body = body[k:]
			first = false
			if len(body) == 0 {
				break
			}
		}
	}
	return wire
}

// compressedBody returns the unmasked payload of one masked frame.
func compressedBody(f []byte) []byte {
	hl := 2
	switch f[1] & 0x7F {
	case 126:
		hl = 4
	case 127:
		hl = 10
	}
	var mask [4]byte
	copy(mask[:], f[hl:hl+4])
	body := append([]byte(nil), f[hl+4:]...)
	maskBytes(mask, 0, body)
	return body
}

// Groups 12 and 13: permessage-deflate round trips, with context takeover
// and without, in one frame and fragmented, at several levels.
func TestAutobahn12And13Deflate(t *testing.T) {
	msgs := deflateMessages()
	params := []struct {
		name string
		p    DeflateParams
	}{
		{"takeover", DeflateParams{}},
		{"client no takeover", DeflateParams{ClientNoContextTakeover: true}},
		{"both no takeover", DeflateParams{ClientNoContextTakeover: true, ServerNoContextTakeover: true}},
		{"level 9", DeflateParams{Level: flate.BestCompression}},
		{"huffman only", DeflateParams{Level: flate.HuffmanOnly}},
	}
	for _, pc := range params {
		for _, op := range []Opcode{OpText, OpBinary} {
			for _, fragment := range []int{0, 1, 100, 4096} {
				ms := msgs
				if op == OpText {
					ms = msgs[:len(msgs)-3] // the random ones are not UTF-8
				}
				if fragment == 1 {
					ms = ms[:6]
				}
				wire := clientFrames(t, pc.p, ms, op, fragment)
				var evs []wantEv
				for _, m := range ms {
					evs = append(evs, wantEv{EventMessage, op, string(m)})
				}
				p := pc.p
				name := pc.name + "/" + op.String() + "/fragment " + itoa(fragment)
				t.Run(name, func(t *testing.T) {
					var g got
					if len(wire) < 20000 {
						g = feedBoth(t, Config{Deflate: &p}, wire)
					} else {
						g = feed(t, Config{Deflate: &p}, wire, false)
					}
					check(t, g, evs, 0)
				})
			}
		}
	}
	// The server's writer, read by a client Reader, with and without
	// takeover; uncompressed messages mixed in (RSV1 clear).
	for _, p := range []DeflateParams{{}, {ServerNoContextTakeover: true}} {
		d := NewDeflater(p, false)
		var wire []byte
		var evs []wantEv
		for i, m := range msgs {
			if i%4 == 3 {
				wire = AppendFrame(wire, OpBinary, true, m)
			} else {
				wire = d.AppendMessage(wire, OpBinary, m)
			}
			evs = append(evs, wantEv{EventMessage, OpBinary, string(m)})
		}
		check(t, feed(t, Config{Client: true, Deflate: &p}, wire, false), evs, 0)
	}
}

// TestDeflateTakeoverNeedsHistory: a message compressed with context
// takeover refers to the previous one, so a Reader that drops its window
// (it believes no takeover was agreed) cannot read it, and one that keeps
// it can. This is what makes the window state necessary.
func TestDeflateTakeoverNeedsHistory(t *testing.T) {
	m := []byte(strings.Repeat("context takeover shares the window. ", 20))
	wire := clientFrames(t, DeflateParams{}, [][]byte{m, m}, OpText, 0)
	check(t, feedBoth(t, Config{Deflate: &DeflateParams{}}, wire),
		[]wantEv{{EventMessage, OpText, string(m)}, {EventMessage, OpText, string(m)}}, 0)
	g := feedBoth(t, Config{Deflate: &DeflateParams{ClientNoContextTakeover: true}}, wire)
	if g.err == nil && len(g.events) == 2 && string(g.events[1].Payload) == string(m) {
		t.Fatal("the second message read without the first's window")
	}
	// Sizes: the second message is far smaller than the first.
	d := NewDeflater(DeflateParams{}, false)
	a, b := len(d.AppendMessage(nil, OpText, m)), len(d.AppendMessage(nil, OpText, m))
	if b*2 > a {
		t.Fatalf("takeover: %d then %d bytes", a, b)
	}
	d = NewDeflater(DeflateParams{ServerNoContextTakeover: true}, false)
	a, b = len(d.AppendMessage(nil, OpText, m)), len(d.AppendMessage(nil, OpText, m))
	if a != b {
		t.Fatalf("no takeover: %d then %d bytes", a, b)
	}
}

// TestDeflateLimits: a zip bomb (a small frame inflating past MaxMessage)
// stops at MaxMessage; a compressed message within the limit passes; the
// wire size of a compressed message counts against MaxMessage too.
func TestDeflateLimits(t *testing.T) {
	p := DeflateParams{ClientNoContextTakeover: true}
	bomb := make([]byte, 10<<20) // 10 MiB of zeros: about 10 KiB compressed
	wire := clientFrames(t, p, [][]byte{bomb}, OpBinary, 0)
	if len(wire) > 64<<10 {
		t.Fatalf("bomb is %d bytes on the wire", len(wire))
	}
	r := NewReader(Config{Deflate: &p, MaxMessage: 1 << 20})
	r.Feed(append([]byte(nil), wire...))
	if r.Err() == nil || r.Err().Code != CloseMessageTooBig {
		t.Fatalf("bomb: err %v", r.Err())
	}
	if r.Buffered() != 0 {
		t.Fatalf("failed Reader holds %d bytes", r.Buffered())
	}
	exact := make([]byte, 1<<20)
	check(t, feed(t, Config{Deflate: &p, MaxMessage: 1 << 20}, clientFrames(t, p, [][]byte{exact}, OpBinary, 0), false),
		[]wantEv{{EventMessage, OpBinary, string(exact)}}, 0)
	over := make([]byte, 1<<20+1)
	check(t, feed(t, Config{Deflate: &p, MaxMessage: 1 << 20}, clientFrames(t, p, [][]byte{over}, OpBinary, 0), false),
		nil, CloseMessageTooBig)
	// Incompressible data larger on the wire than MaxMessage fails from
	// the header.
	rnd := make([]byte, 5000)
	rand.New(rand.NewSource(2)).Read(rnd)
	check(t, feedBoth(t, Config{Deflate: &p, MaxMessage: 4000, MaxFrame: 1 << 20}, clientFrames(t, p, [][]byte{rnd}, OpBinary, 0)), nil, CloseMessageTooBig)
}

// TestDeflateErrors: RSV1 on a continuation or a control frame, corrupt
// compressed data, compressed invalid UTF-8.
func TestDeflateErrors(t *testing.T) {
	p := DeflateParams{}
	cfg := Config{Deflate: &p}
	body := compressedBody(NewDeflater(p, true).AppendMaskedMessage(nil, OpText, []byte("Hello, world"), testMask))
	cases := []struct {
		name string
		in   []byte
		fail CloseCode
	}{
		{"RSV1 on a continuation", cat(cf(false, 0x40, OpText, body[:3]), cf(true, 0x40, OpContinuation, body[3:])), CloseProtocolError},
		{"RSV1 on a continuation of an uncompressed message", cat(cf(false, 0, OpText, []byte("ab")), cf(true, 0x40, OpContinuation, []byte("cd"))), CloseProtocolError},
		{"RSV1 on a ping", cf(true, 0x40, OpPing, nil), CloseProtocolError},
		{"corrupt data", cf(true, 0x40, OpBinary, []byte{0xFF, 0xFF, 0xFF, 0xFF}), CloseInvalidPayload},
		{"invalid UTF-8 compressed", clientFrames(t, DeflateParams{}, [][]byte{[]byte("ok so far \xed\xa0\x80")}, OpText, 0), CloseInvalidPayload},
		{"text cut inside a sequence", clientFrames(t, DeflateParams{}, [][]byte{[]byte("cut \xe2\x82")}, OpText, 0), CloseInvalidPayload},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, feedBoth(t, cfg, c.in), nil, c.fail) })
	}
	// Without an agreement, RSV1 is a protocol error (group 3 too).
	check(t, feedBoth(t, Config{}, clientFrames(t, p, [][]byte{[]byte("x")}, OpText, 0)), nil, CloseProtocolError)
}

// TestDeflaterRelease: Release drops the context; the next message starts
// a fresh one (compressed as the first was).
func TestDeflaterRelease(t *testing.T) {
	m := []byte(strings.Repeat("released context ", 10))
	d := NewDeflater(DeflateParams{}, false)
	first := d.AppendMessage(nil, OpText, m)
	second := d.AppendMessage(nil, OpText, m)
	d.Release()
	third := d.AppendMessage(nil, OpText, m)
	if bytes.Equal(first, second) || !bytes.Equal(first, third) {
		t.Fatalf("first %x\nsecond %x\nthird %x", first, second, third)
	}
	p := DeflateParams{}
	check(t, feedBoth(t, Config{Client: true, Deflate: &p}, cat(first, second, third)),
		[]wantEv{{EventMessage, OpText, string(m)}, {EventMessage, OpText, string(m)}, {EventMessage, OpText, string(m)}}, 0)
}
