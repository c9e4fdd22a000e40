package websocket

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// testMask is the mask of the RFC 6455 section 5.7 examples.
var testMask = [4]byte{0x37, 0xfa, 0x21, 0x3d}

// got is what a Reader made of an input: its events (payloads copied) and
// the error that stopped it.
type got struct {
	events   []Event
	err      *CloseError
	consumed int
}

func (g got) String() string {
	var b strings.Builder
	for _, e := range g.events {
		fmt.Fprintf(&b, "%v/%v(%d bytes, code %d %q) ", e.Kind, e.Opcode, len(e.Payload), e.Code, e.Reason)
	}
	if g.err != nil {
		fmt.Fprintf(&b, "err %d %q", g.err.Code, g.err.Reason)
	}
	return b.String()
}

// feed runs input through a new Reader, either in one piece or one byte
// at a time (each time appended to what the Reader left), as a
// connection's read loop would, and collects what it reports.
func feed(t testing.TB, cfg Config, input []byte, byteAtATime bool) got {
	t.Helper()
	r := NewReader(cfg)
	var g got
	var pending []byte
	rest := append([]byte(nil), input...) // Feed unmasks in place
	for {
		if byteAtATime {
			if len(rest) == 0 {
				break
			}
			pending = append(pending, rest[0])
			rest = rest[1:]
		} else {
			if rest == nil {
				break
			}
			pending, rest = rest, nil
		}
		for {
			n := r.Feed(pending)
			pending = pending[n:]
			g.consumed += n
			ev, ok := r.Next()
			if ok {
				ev.Payload = append([]byte{}, ev.Payload...)
				g.events = append(g.events, ev)
			}
			if _, again := r.Next(); again {
				t.Fatal("Next returned an event twice")
			}
			if !ok && n == 0 {
				break
			}
		}
		if r.Err() != nil || r.Closed() {
			break
		}
	}
	g.err = r.Err()
	if g.err == nil && !r.Closed() && r.Feed(nil) == 0 && !r.InMessage() && r.Buffered() != 0 {
		t.Errorf("idle Reader holds a %d-byte buffer", r.Buffered())
	}
	return g
}

// feedBoth feeds input whole and one byte at a time, checks that both give
// the same result, and returns it.
func feedBoth(t testing.TB, cfg Config, input []byte) got {
	t.Helper()
	whole := feed(t, cfg, input, false)
	bytewise := feed(t, cfg, input, true)
	if !sameGot(whole, bytewise) {
		t.Fatalf("whole input: %v\nbyte at a time: %v", whole, bytewise)
	}
	return whole
}

func sameGot(a, b got) bool {
	if len(a.events) != len(b.events) || (a.err == nil) != (b.err == nil) {
		return false
	}
	if a.err != nil && *a.err != *b.err {
		return false
	}
	for i := range a.events {
		x, y := a.events[i], b.events[i]
		if x.Kind != y.Kind || x.Opcode != y.Opcode || x.Code != y.Code || x.Reason != y.Reason || !bytes.Equal(x.Payload, y.Payload) {
			return false
		}
	}
	return true
}

// cf builds a masked client frame; rsv holds RSV bits (0x40, 0x20, 0x10).
func cf(fin bool, rsv byte, op Opcode, payload []byte) []byte {
	b := AppendMaskedFrame(nil, op, fin, payload, testMask)
	b[0] |= rsv
	return b
}

// msg is a complete masked text or binary frame.
func text(s string) []byte { return cf(true, 0, OpText, []byte(s)) }
func bin(p []byte) []byte  { return cf(true, 0, OpBinary, p) }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// want describes the expected result: the events (kind, opcode, payload)
// and the close code of the failure (0: none).
type wantEv struct {
	kind    EventKind
	op      Opcode
	payload string
}

func check(t *testing.T, g got, evs []wantEv, failCode CloseCode) {
	t.Helper()
	if len(g.events) != len(evs) {
		t.Fatalf("got %v, want %d events (fail %d)", g, len(evs), failCode)
	}
	for i, w := range evs {
		e := g.events[i]
		if e.Kind != w.kind || (w.op != 0 && e.Opcode != w.op) || string(e.Payload) != w.payload {
			t.Fatalf("event %d: got %v/%v %q, want %v/%v %q", i, e.Kind, e.Opcode, trunc(e.Payload), w.kind, w.op, trunc([]byte(w.payload)))
		}
	}
	switch {
	case failCode == 0 && g.err != nil:
		t.Fatalf("unexpected failure %d %q", g.err.Code, g.err.Reason)
	case failCode != 0 && g.err == nil:
		t.Fatalf("no failure, want close %d (got %v)", failCode, g)
	case failCode != 0 && g.err.Code != failCode:
		t.Fatalf("failed with %d %q, want %d", g.err.Code, g.err.Reason, failCode)
	}
}

func trunc(b []byte) string {
	if len(b) > 40 {
		return fmt.Sprintf("%q...(%d bytes)", b[:40], len(b))
	}
	return fmt.Sprintf("%q", b)
}
