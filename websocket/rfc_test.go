package websocket

import (
	"bytes"
	"encoding/hex"
	"testing"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAcceptKeyRFC6455 checks the example of RFC 6455 section 1.3.
func TestAcceptKeyRFC6455(t *testing.T) {
	if got := AcceptKey("dGhlIHNhbXBsZSBub25jZQ=="); got != "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=" {
		t.Fatalf("AcceptKey = %q", got)
	}
}

func TestValidClientKey(t *testing.T) {
	for key, want := range map[string]bool{
		"dGhlIHNhbXBsZSBub25jZQ==": true,
		"AAAAAAAAAAAAAAAAAAAAAA==": true,
		"dGhlIHNhbXBsZSBub25jZQ":   false, // unpadded
		"dGhlIHNhbXBsZSBub25jZQ=":  false,
		"dGhlIHNhbXBsZSBub25jZS0=": false, // 17 bytes? no: 24 chars, 17 bytes would need "="
		"dGhlIHNhbXBsZSBub25j":     false, // 15 bytes
		"":                         false,
		"!!!!!!!!!!!!!!!!!!!!!!==": false,
		"dGhlIHNhbXBsZSBub25jZQ=x": false,
	} {
		if got := ValidClientKey(key); got != want {
			t.Errorf("ValidClientKey(%q) = %v, want %v", key, got, want)
		}
	}
}

// TestRFC6455Examples checks the writer against the bytes of RFC 6455
// section 5.7 and reads them back with the Reader in the matching role.
func TestRFC6455Examples(t *testing.T) {
	hello := []byte("Hello")
	p256 := bytes.Repeat([]byte{0xA5}, 256)
	p64k := bytes.Repeat([]byte{0x5A}, 65536)
	cases := []struct {
		name   string
		built  []byte
		wire   []byte
		client bool // read as a client (unmasked frames)
		evs    []wantEv
	}{
		{"single-frame unmasked text", AppendFrame(nil, OpText, true, hello),
			unhex(t, "810548656c6c6f"), true, []wantEv{{EventMessage, OpText, "Hello"}}},
		{"single-frame masked text", AppendMaskedFrame(nil, OpText, true, hello, testMask),
			unhex(t, "818537fa213d7f9f4d5158"), false, []wantEv{{EventMessage, OpText, "Hello"}}},
		{"fragmented unmasked text", cat(AppendFrame(nil, OpText, false, hello[:3]), AppendFrame(nil, OpContinuation, true, hello[3:])),
			unhex(t, "010348656c80026c6f"), true, []wantEv{{EventMessage, OpText, "Hello"}}},
		{"unmasked ping", AppendFrame(nil, OpPing, true, hello),
			unhex(t, "890548656c6c6f"), true, []wantEv{{EventPing, OpPing, "Hello"}}},
		{"masked pong", AppendMaskedFrame(nil, OpPong, true, hello, testMask),
			unhex(t, "8a8537fa213d7f9f4d5158"), false, []wantEv{{EventPong, OpPong, "Hello"}}},
		{"256 bytes binary", AppendFrame(nil, OpBinary, true, p256),
			append(unhex(t, "827e0100"), p256...), true, []wantEv{{EventMessage, OpBinary, string(p256)}}},
		{"64 KiB binary", AppendFrame(nil, OpBinary, true, p64k),
			append(unhex(t, "827f0000000000010000"), p64k...), true, []wantEv{{EventMessage, OpBinary, string(p64k)}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if !bytes.Equal(c.built, c.wire) {
				t.Fatalf("writer: %x\nRFC:    %x", trunc(c.built), trunc(c.wire))
			}
			check(t, feedBoth(t, Config{Client: c.client}, c.wire), c.evs, 0)
			// The other role rejects the frame's masking (RFC 6455 5.1).
			check(t, feedBoth(t, Config{Client: !c.client}, c.wire), nil, CloseProtocolError)
		})
	}
}

// TestRFC7692Examples reads the compressed frames of RFC 7692 section
// 7.2.3 (sent by a server: unmasked) and checks the writer's bytes where
// compress/flate produces the same encoding.
func TestRFC7692Examples(t *testing.T) {
	takeover := &DeflateParams{}
	noTakeover := &DeflateParams{ServerNoContextTakeover: true}
	cases := []struct {
		name string
		p    *DeflateParams
		wire string
		evs  []wantEv
	}{
		// 7.2.3.1: "Hello" in one compressed frame, and fragmented.
		{"7.2.3.1 one frame", noTakeover, "c107f248cdc9c90700", []wantEv{{EventMessage, OpText, "Hello"}}},
		{"7.2.3.1 fragmented", noTakeover, "4103f248cd" + "8004c9c90700", []wantEv{{EventMessage, OpText, "Hello"}}},
		// 7.2.3.2: the second "Hello" refers to the first (shared window).
		{"7.2.3.2 context takeover", takeover, "c107f248cdc9c90700" + "c105f200110000",
			[]wantEv{{EventMessage, OpText, "Hello"}, {EventMessage, OpText, "Hello"}}},
		// 7.2.3.3: a stored (uncompressed) DEFLATE block.
		{"7.2.3.3 no compression", noTakeover, "c10b0005 00faff48656c6c6f00", []wantEv{{EventMessage, OpText, "Hello"}}},
		// 7.2.3.4: BFINAL set.
		{"7.2.3.4 bfinal", noTakeover, "c108f348cdc9c9070000", []wantEv{{EventMessage, OpText, "Hello"}}},
		// 7.2.3.5: two DEFLATE blocks in one message.
		{"7.2.3.5 two blocks", noTakeover, "c10df248050000 00ffffcac9c90700", []wantEv{{EventMessage, OpText, "Hello"}}},
		// 7.2.3.6: an empty message.
		{"7.2.3.6 empty", noTakeover, "c10100", []wantEv{{EventMessage, OpText, ""}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wire := unhex(t, stripSpaces(c.wire))
			check(t, feedBoth(t, Config{Client: true, Deflate: c.p}, wire), c.evs, 0)
		})
	}

	// The writer: "Hello" with and without takeover, and the empty message.
	// compress/flate's BestSpeed (the default Level) stores inputs this
	// short (the 7.2.3.3 form); DefaultCompression gives the RFC's bytes.
	if got := NewDeflater(DeflateParams{}, false).AppendMessage(nil, OpText, []byte("Hello")); !bytes.Equal(got, unhex(t, "c10b000500faff48656c6c6f00")) {
		t.Errorf("BestSpeed: %x", got)
	}
	d := NewDeflater(DeflateParams{ServerNoContextTakeover: true, Level: -1}, false)
	if got := d.AppendMessage(nil, OpText, []byte("Hello")); !bytes.Equal(got, unhex(t, "c107f248cdc9c90700")) {
		t.Errorf("no takeover: %x", got)
	}
	if got := d.AppendMessage(nil, OpText, []byte("Hello")); !bytes.Equal(got, unhex(t, "c107f248cdc9c90700")) {
		t.Errorf("no takeover, second message: %x", got)
	}
	if got := d.AppendMessage(nil, OpText, nil); !bytes.Equal(got, unhex(t, "c10100")) {
		t.Errorf("empty: %x", got)
	}
	d = NewDeflater(DeflateParams{Level: -1}, false)
	first := d.AppendMessage(nil, OpText, []byte("Hello"))
	second := d.AppendMessage(nil, OpText, []byte("Hello"))
	if !bytes.Equal(first, unhex(t, "c107f248cdc9c90700")) {
		t.Errorf("takeover, first: %x", first)
	}
	t.Logf("takeover, second message: %x (RFC 7692 7.2.3.2: c105f200110000)", second)
	if len(second) >= len(first) {
		t.Errorf("the second message did not use the shared window: %x", second)
	}
	check(t, feedBoth(t, Config{Client: true, Deflate: &DeflateParams{}}, cat(first, second)),
		[]wantEv{{EventMessage, OpText, "Hello"}, {EventMessage, OpText, "Hello"}}, 0)
}

func stripSpaces(s string) string {
	return string(bytes.ReplaceAll([]byte(s), []byte(" "), nil))
}
