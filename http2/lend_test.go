package http2

import (
	"bytes"
	"testing"

	xh2 "golang.org/x/net/http2"

	"github.com/gwist/gwist/http1"
)

// dataOn returns the DATA bytes frames carry on stream id, and whether one
// ended it.
func dataOn(fs []xh2.Frame, id uint32) (b []byte, ended bool) {
	for _, f := range fs {
		if d, ok := f.(*dataCopy); ok && d.StreamID == id {
			b = append(b, d.Data...)
			ended = ended || d.End
		}
	}
	return b, ended
}

// respondingPeer is a peer whose stream window is window, with stream 1's
// request taken and its response head written.
func respondingPeer(t *testing.T, window uint32) *peer {
	p := newPeer(t, Config{})
	p.handshake(xh2.Setting{ID: xh2.SettingInitialWindowSize, Val: window})
	p.request(1, "GET", "/", true)
	p.pump()
	if err := p.c.WriteHeaders(1, 200, []http1.HeaderField{{Name: "Content-Type", Value: "text/plain"}}, false); err != nil {
		t.Fatal(err)
	}
	return p
}

// LendData frames from the caller's bytes, not a copy: a change made
// before Output shows in the frames. Lent reports true until every lent
// byte is framed. While lent bytes wait (the window is shut), LendData
// takes nothing more and EventWritable comes only once they are framed;
// then it lends the rest.
func TestLendDataFramesTheCallersBytes(t *testing.T) {
	p := respondingPeer(t, 1000)
	body := bytes.Repeat([]byte("a"), 1500)
	n, err := p.c.LendData(1, body, true)
	if err != nil || n != len(body) {
		t.Fatalf("LendData: %d, %v", n, err)
	}
	if !p.c.Lent(1) {
		t.Fatal("Lent is false before anything was framed")
	}
	body[0], body[1499] = 'X', 'Y' // the caller's bytes, changed before Output
	p.pump()
	got, ended := dataOn(p.frames(), 1)
	if len(got) != 1000 || got[0] != 'X' || ended {
		t.Fatalf("first %d bytes framed (ended %v), starting %q; want 1000 from the lent bytes, starting X", len(got), ended, got[:1])
	}
	if !p.c.Lent(1) {
		t.Fatal("Lent is false with 500 lent bytes still waiting for the window")
	}
	p.takeEvents()

	p.fr.WriteWindowUpdate(1, 1000)
	p.pump()
	rest, ended := dataOn(p.frames(), 1)
	if len(rest) != 500 || rest[499] != 'Y' || !ended {
		t.Fatalf("then %d bytes (ended %v); want the last 500, ending in Y, and END_STREAM", len(rest), ended)
	}
	if p.c.Lent(1) {
		t.Fatal("Lent is still true once every lent byte was framed")
	}
}

// While lent bytes wait, LendData takes none and blocks the stream: its
// EventWritable comes once they are framed, not when the queue merely has
// room, and the next LendData lends again.
func TestLendDataWaitsForLentBytes(t *testing.T) {
	p := respondingPeer(t, 100)
	first := bytes.Repeat([]byte("1"), 300)
	if n, _ := p.c.LendData(1, first, false); n != 300 {
		t.Fatalf("first LendData took %d, want 300", n)
	}
	second := bytes.Repeat([]byte("2"), 300)
	if n, _ := p.c.LendData(1, second, true); n != 0 {
		t.Fatalf("LendData with lent bytes waiting took %d, want 0", n)
	}
	p.pump() // 100 framed: 200 lent bytes still wait
	if w := eventsOf(p.takeEvents(), EventWritable); len(w) != 0 {
		t.Fatalf("EventWritable with lent bytes still waiting: %v", w)
	}
	p.fr.WriteWindowUpdate(1, 200)
	p.pump()
	if w := eventsOf(p.takeEvents(), EventWritable); len(w) != 1 {
		t.Fatalf("no EventWritable once the lent bytes were framed (%v)", w)
	}
	if p.c.Lent(1) {
		t.Fatal("Lent true after the lent bytes were framed")
	}
	if n, _ := p.c.LendData(1, second, true); n != 300 || !p.c.Lent(1) {
		t.Fatalf("LendData then took %d (lent %v), want 300 lent", n, p.c.Lent(1))
	}
	p.fr.WriteWindowUpdate(1, 300)
	p.pump()
	got, ended := dataOn(p.frames(), 1)
	if want := append(bytes.Repeat([]byte("1"), 300), second...); !bytes.Equal(got, want) || !ended {
		t.Fatalf("framed %q (ended %v)", got, ended)
	}
}

// Unlend: the stream keeps a copy of what it has not framed, so the
// caller's later changes to its buffer do not reach the peer.
func TestUnlendCopiesWhatIsNotFramed(t *testing.T) {
	p := respondingPeer(t, 100)
	body := bytes.Repeat([]byte("a"), 300)
	if n, _ := p.c.LendData(1, body, true); n != 300 {
		t.Fatalf("LendData took %d, want 300", n)
	}
	p.pump() // 100 framed
	p.c.Unlend(1)
	if p.c.Lent(1) {
		t.Fatal("Lent true after Unlend")
	}
	copy(body, bytes.Repeat([]byte("X"), 300)) // the caller reuses its buffer
	p.fr.WriteWindowUpdate(1, 200)
	p.pump()
	got, ended := dataOn(p.frames(), 1)
	if !bytes.Equal(got, bytes.Repeat([]byte("a"), 300)) || !ended {
		t.Fatalf("framed %q (ended %v), want 300 a's", got, ended)
	}
}
