package websocket

import (
	"strings"
	"testing"
)

func closeFrame(code CloseCode, reason string) []byte {
	return cf(true, 0, OpClose, ClosePayload(nil, code, reason))
}

// Group 7: close handling.
func TestAutobahn7Close(t *testing.T) {
	closeEv := func(payload string) wantEv { return wantEv{EventClose, OpClose, payload} }
	cases := []struct {
		name string
		in   []byte
		evs  []wantEv
		fail CloseCode
		code CloseCode
	}{
		{"7.1.1 text then close", cat(text("Hello World!"), closeFrame(CloseNormal, "")),
			[]wantEv{{EventMessage, OpText, "Hello World!"}, closeEv("\x03\xe8")}, 0, CloseNormal},
		{"7.1.3 nothing read after close", cat(closeFrame(CloseNormal, ""), text("after close")),
			[]wantEv{closeEv("\x03\xe8")}, 0, CloseNormal},
		{"7.1.5 close inside a fragmented message", cat(cf(false, 0, OpText, []byte("frag")), closeFrame(CloseNormal, ""), cf(true, 0, OpContinuation, []byte("ment"))),
			[]wantEv{closeEv("\x03\xe8")}, 0, CloseNormal},
		{"7.3.1 empty close", cf(true, 0, OpClose, nil), []wantEv{closeEv("")}, 0, CloseNoStatus},
		{"7.3.2 one-byte payload", cf(true, 0, OpClose, []byte{0x03}), nil, CloseProtocolError, 0},
		{"7.3.3 code only", closeFrame(CloseNormal, ""), []wantEv{closeEv("\x03\xe8")}, 0, CloseNormal},
		{"7.3.4 code and reason", closeFrame(CloseNormal, "Hello World!"), []wantEv{closeEv("\x03\xe8Hello World!")}, 0, CloseNormal},
		{"7.3.5 123-byte reason", closeFrame(CloseNormal, strings.Repeat("*", 123)), []wantEv{closeEv("\x03\xe8" + strings.Repeat("*", 123))}, 0, CloseNormal},
		{"7.3.6 124-byte reason (126-byte payload)", cf(true, 0, OpClose, append([]byte{0x03, 0xe8}, strings.Repeat("*", 124)...)), nil, CloseProtocolError, 0},
		{"7.5.1 invalid UTF-8 reason", cf(true, 0, OpClose, []byte("\x03\xe8\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited")), nil, CloseInvalidPayload, 0},
		{"7.x reason cut inside a sequence", cf(true, 0, OpClose, []byte("\x03\xe8ab\xe2\x82")), nil, CloseInvalidPayload, 0},
	}
	for _, code := range []CloseCode{1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999} {
		p := ClosePayload(nil, code, "")
		cases = append(cases, struct {
			name string
			in   []byte
			evs  []wantEv
			fail CloseCode
			code CloseCode
		}{"7.7 valid code " + itoa(int(code)), closeFrame(code, ""), []wantEv{closeEv(string(p))}, 0, code})
	}
	for _, code := range []CloseCode{0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535} {
		p := []byte{byte(code >> 8), byte(code)}
		cases = append(cases, struct {
			name string
			in   []byte
			evs  []wantEv
			fail CloseCode
			code CloseCode
		}{"7.9 invalid code " + itoa(int(code)), cf(true, 0, OpClose, p), nil, CloseProtocolError, 0})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := feedBoth(t, Config{}, c.in)
			check(t, g, c.evs, c.fail)
			if c.fail == 0 {
				last := g.events[len(g.events)-1]
				if last.Code != c.code {
					t.Fatalf("close code %d, want %d", last.Code, c.code)
				}
				if len(last.Payload) > 2 && last.Reason != string(last.Payload[2:]) {
					t.Fatalf("reason %q", last.Reason)
				}
			}
		})
	}
}

func TestAppendClose(t *testing.T) {
	if got := AppendClose(nil, CloseNoStatus, "ignored"); string(got) != "\x88\x00" {
		t.Fatalf("no status: %x", got)
	}
	if got := AppendClose(nil, CloseGoingAway, "bye"); string(got) != "\x88\x05\x03\xe9bye" {
		t.Fatalf("going away: %x", got)
	}
	// A reason too long is cut to 123 bytes at a character boundary: 61
	// two-byte characters are 122 bytes; the 62nd would make 124.
	long := strings.Repeat("é", 100)
	got := AppendClose(nil, CloseNormal, long)
	if len(got) != 2+2+122 {
		t.Fatalf("frame of %d bytes", len(got))
	}
	g := feedBoth(t, Config{Client: true}, got)
	check(t, g, []wantEv{{EventClose, OpClose, "\x03\xe8" + strings.Repeat("é", 61)}}, 0)
	ascii := strings.Repeat("x", 200)
	if got := AppendClose(nil, CloseNormal, ascii); len(got) != 2+125 {
		t.Fatalf("ascii reason: frame of %d bytes", len(got))
	}
}

func TestValidCloseCode(t *testing.T) {
	valid := 0
	for c := 0; c < 1<<16; c++ {
		if ValidCloseCode(CloseCode(c)) {
			valid++
		}
	}
	if valid != 4+5+3+2000 { // 1000-1003, 1007-1011, 1012-1014, 3000-4999
		t.Fatalf("%d valid codes, want %d", valid, 4+5+3+2000)
	}
}

func TestCloseErrorString(t *testing.T) {
	e := &CloseError{Code: CloseProtocolError, Reason: "reserved opcode 3"}
	if e.Error() != "websocket: reserved opcode 3 (close 1002)" {
		t.Fatal(e.Error())
	}
}
