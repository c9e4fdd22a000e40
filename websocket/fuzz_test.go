package websocket

import (
	"bytes"
	"math/rand"
	"testing"
	"unicode/utf8"
)

// fuzzLimits are small so the fuzzer reaches them.
const (
	fuzzMaxFrame   = 300
	fuzzMaxMessage = 1000
)

// feedSplit feeds input in pieces whose sizes come from rng (or whole when
// rng is nil) and checks the invariants every run must keep.
func feedSplit(t *testing.T, cfg Config, input []byte, rng *rand.Rand) got {
	r := NewReader(cfg)
	var g got
	var pending []byte
	rest := append([]byte(nil), input...)
	for len(rest) > 0 || len(pending) > 0 {
		k := len(rest)
		if rng != nil && k > 0 {
			k = 1 + rng.Intn(min(k, 64))
		}
		pending = append(pending, rest[:k]...)
		rest = rest[k:]
		for {
			n := r.Feed(pending)
			if n < 0 || n > len(pending) {
				t.Fatalf("Feed returned %d of %d", n, len(pending))
			}
			pending = pending[n:]
			g.consumed += n
			if b := r.Buffered(); b > 2*1024 {
				t.Fatalf("Reader holds %d bytes under MaxMessage %d", b, fuzzMaxMessage)
			}
			ev, ok := r.Next()
			if !ok {
				if n == 0 {
					break
				}
				continue
			}
			switch ev.Kind {
			case EventMessage:
				if len(ev.Payload) > fuzzMaxMessage {
					t.Fatalf("message of %d bytes", len(ev.Payload))
				}
				if ev.Opcode == OpText && !utf8.Valid(ev.Payload) {
					t.Fatalf("invalid UTF-8 text delivered: %q", ev.Payload)
				}
				if ev.Opcode != OpText && ev.Opcode != OpBinary {
					t.Fatalf("message with opcode %v", ev.Opcode)
				}
			case EventPing, EventPong:
				if len(ev.Payload) > MaxControlPayload {
					t.Fatalf("control payload of %d bytes", len(ev.Payload))
				}
			case EventClose:
				if ev.Code != CloseNoStatus && !ValidCloseCode(ev.Code) || !utf8.ValidString(ev.Reason) {
					t.Fatalf("close %d %q delivered", ev.Code, ev.Reason)
				}
			default:
				t.Fatalf("event kind %v", ev.Kind)
			}
			ev.Payload = append([]byte{}, ev.Payload...)
			g.events = append(g.events, ev)
		}
		if r.Err() != nil || r.Closed() {
			break
		}
		if len(pending) > 14 {
			t.Fatalf("%d bytes left unconsumed without an event", len(pending))
		}
		if len(rest) == 0 {
			break
		}
	}
	g.err = r.Err()
	if g.err != nil && (g.err.Code != CloseProtocolError && g.err.Code != CloseInvalidPayload && g.err.Code != CloseMessageTooBig) {
		t.Fatalf("close code %d", g.err.Code)
	}
	return g
}

// FuzzReader feeds arbitrary bytes, whole and in random splits, to
// Readers in both roles, with and without permessage-deflate, under small
// limits: no panic, no memory past the limits, only valid events, and the
// same result however the input is split.
func FuzzReader(f *testing.F) {
	f.Add([]byte("\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58"), int64(1), uint8(0))
	f.Add([]byte("\x81\x05Hello\x01\x03Hel\x89\x00\x80\x02lo"), int64(2), uint8(1))
	f.Add([]byte("\xc1\x07\xf2\x48\xcd\xc9\xc9\x07\x00\xc1\x05\xf2\x00\x11\x00\x00"), int64(3), uint8(3))
	f.Add([]byte("\x41\x03\xf2\x48\xcd\x80\x04\xc9\xc9\x07\x00"), int64(4), uint8(3))
	f.Add(cat(cf(false, 0, OpText, []byte("\xce\xba\xe1")), cf(true, 0, OpPing, nil), cf(true, 0, OpContinuation, []byte("\xbd\xb9")), closeFrame(CloseNormal, "bye")), int64(5), uint8(0))
	f.Add(clientFrames(f, DeflateParams{}, [][]byte{bytes.Repeat([]byte("zip"), 500), make([]byte, 5000)}, OpBinary, 0), int64(6), uint8(2))
	f.Add([]byte("\x82\xff\x00\x00\x00\x00\x00\x01\x00\x00\x01\x02\x03\x04"), int64(7), uint8(0))
	f.Fuzz(func(t *testing.T, input []byte, seed int64, mode uint8) {
		cfg := Config{Client: mode&1 != 0, MaxFrame: fuzzMaxFrame, MaxMessage: fuzzMaxMessage}
		if mode&2 != 0 {
			cfg.Deflate = &DeflateParams{ClientNoContextTakeover: mode&4 != 0, ServerNoContextTakeover: mode&4 != 0}
		}
		whole := feedSplit(t, cfg, input, nil)
		split := feedSplit(t, cfg, input, rand.New(rand.NewSource(seed)))
		if !sameGot(whole, split) {
			t.Fatalf("whole: %v\nsplit: %v", whole, split)
		}
	})
}

// FuzzRoundTrip writes random messages (random fragmentation, control
// frames between fragments, compressed or not) with the writers and reads
// them back: the Reader must return exactly what was written.
func FuzzRoundTrip(f *testing.F) {
	f.Add(int64(1), uint8(0), []byte("hello"))
	f.Add(int64(2), uint8(7), bytes.Repeat([]byte("ab\xc3\xa9"), 100))
	f.Add(int64(3), uint8(3), []byte{})
	f.Fuzz(func(t *testing.T, seed int64, mode uint8, data []byte) {
		rng := rand.New(rand.NewSource(seed))
		client := mode&1 != 0 // the Reader's role: frames come from the server
		var p *DeflateParams
		var d *Deflater
		if mode&2 != 0 {
			p = &DeflateParams{ServerNoContextTakeover: mode&4 != 0, ClientNoContextTakeover: mode&4 != 0}
			d = NewDeflater(*p, !client)
		}
		var wire []byte
		var want []wantEv
		frame := func(op Opcode, fin bool, payload []byte, rsv byte) {
			start := len(wire)
			if client {
				wire = AppendFrame(wire, op, fin, payload)
			} else {
				var m [4]byte
				rng.Read(m[:])
				wire = AppendMaskedFrame(wire, op, fin, payload, m)
			}
			wire[start] |= rsv
		}
		for i := 0; i < 1+rng.Intn(8); i++ {
			n := rng.Intn(len(data) + 1)
			off := rng.Intn(len(data) - n + 1)
			payload := data[off : off+n]
			op := OpBinary
			if utf8.Valid(payload) && rng.Intn(2) == 0 {
				op = OpText
			}
			want = append(want, wantEv{EventMessage, op, string(payload)})
			body := payload
			var rsv byte
			if d != nil && rng.Intn(3) > 0 {
				var m [4]byte
				var f []byte
				if client {
					f = d.AppendMessage(nil, op, payload)
				} else {
					f = d.AppendMaskedMessage(nil, op, payload, m)
				}
				body, rsv = frameBody(f), 0x40
			}
			// Fragment body at random points, pings between.
			first := true
			for {
				k := len(body)
				if k > 0 && rng.Intn(2) == 0 {
					k = rng.Intn(k + 1)
				}
				fop, frsv := OpContinuation, byte(0)
				if first {
					fop, frsv = op, rsv
				}
				frame(fop, k == len(body), body[:k], frsv)
				body = body[k:]
				first = false
				if len(body) == 0 {
					break
				}
				if rng.Intn(4) == 0 {
					ping := data[:min(len(data), rng.Intn(126))]
					frame(OpPing, true, ping, 0)
					// The ping is reported before the message it interrupts.
					want = append(want, want[len(want)-1])
					want[len(want)-2] = wantEv{EventPing, OpPing, string(ping)}
				}
			}
		}
		cfg := Config{Client: client, Deflate: p, MaxFrame: 1 << 20, MaxMessage: 1 << 20}
		g := feedSplit2(t, cfg, wire, rng)
		check(t, g, want, 0)
	})
}

// frameBody returns the (unmasked) payload of a single frame.
func frameBody(f []byte) []byte {
	hl := 2
	switch f[1] & 0x7F {
	case 126:
		hl = 4
	case 127:
		hl = 10
	}
	if f[1]&0x80 == 0 {
		return f[hl:]
	}
	return compressedBody(f)
}

// feedSplit2 is feed with random splits and no small-limit checks.
func feedSplit2(t *testing.T, cfg Config, input []byte, rng *rand.Rand) got {
	r := NewReader(cfg)
	var g got
	var pending []byte
	for len(input) > 0 {
		k := 1 + rng.Intn(min(len(input), 300))
		pending = append(pending, input[:k]...)
		input = input[k:]
		for {
			n := r.Feed(pending)
			pending = pending[n:]
			ev, ok := r.Next()
			if !ok {
				if n == 0 {
					break
				}
				continue
			}
			ev.Payload = append([]byte{}, ev.Payload...)
			g.events = append(g.events, ev)
		}
	}
	g.err = r.Err()
	return g
}

// FuzzUTF8State: the incremental validator, fed in pieces, agrees with
// unicode/utf8, and fails in the piece holding the first invalid byte.
func FuzzUTF8State(f *testing.F) {
	f.Add([]byte("\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xf4\x90\x80\x80"), int64(1))
	f.Add([]byte("abc\xed\xa0\x80"), int64(2))
	f.Fuzz(func(t *testing.T, p []byte, seed int64) {
		rng := rand.New(rand.NewSource(seed))
		var s utf8State
		ok, rest, failedAt := true, p, -1
		for len(rest) > 0 && ok {
			k := 1 + rng.Intn(len(rest))
			if !s.feed(rest[:k]) {
				ok, failedAt = false, len(p)-len(rest)+k
			}
			rest = rest[k:]
		}
		got := ok && s.complete()
		if got != utf8.Valid(p) {
			t.Fatalf("%x: %v, want %v", p, got, utf8.Valid(p))
		}
		if !ok {
			// Fail fast: the prefix before the failing piece could be
			// completed into valid UTF-8, so it was right not to fail
			// earlier; and the prefix through the failing piece cannot.
			prefix := p[:failedAt]
			for _, suffix := range []string{"", "\x80", "\x80\x80", "\x80\x80\x80", "\xbf", "\xbf\xbf", "\xbf\xbf\xbf", "\x90\x80\x80", "\xa0\x80"} {
				if utf8.Valid(append(append([]byte(nil), prefix...), suffix...)) {
					t.Fatalf("%x failed at %d, but the prefix completes with %x", p, failedAt, suffix)
				}
			}
		}
	})
}
