package http2

import (
	"bytes"
	"testing"

	"github.com/gwist/gwist/http1"
	xh2 "golang.org/x/net/http2"
)

// A large response that fills the connection's queue does not keep a
// small one out: the small one is still taken whole (a stream may always
// queue one frame), and OutputSmall sends its HEADERS and DATA, to its
// END_STREAM, while the large body waits for Output.
func TestSmallResponseBesideFullQueue(t *testing.T) {
	p := newPeer(t, Config{MaxStreamQueued: 64 << 10, MaxConnQueued: 64 << 10})
	p.handshake()
	p.request(1, "GET", "/big", true)
	p.request(3, "GET", "/small", true)
	p.pump()
	p.takeEvents()
	fields := []http1.HeaderField{{Name: "Content-Type", Value: "text/plain"}}
	if err := p.c.WriteHeaders(1, 200, fields, false); err != nil {
		t.Fatal(err)
	}
	if n, err := p.c.WriteData(1, bytes.Repeat([]byte("b"), 64<<10), false); err != nil || n != 64<<10 {
		t.Fatalf("big: %d %v", n, err)
	}
	if n := p.c.Writable(1); n != 0 {
		t.Fatalf("the big stream has room for %d more", n)
	}
	if err := p.c.WriteHeaders(3, 200, fields, false); err != nil {
		t.Fatal(err)
	}
	if n, err := p.c.WriteData(3, []byte("small"), true); err != nil || n != 5 {
		t.Fatalf("small, beside a full connection queue: %d %v", n, err)
	}
	p.fromSrv.Write(p.c.OutputSmall(nil))
	var heads []uint32
	var small, bigData bool
	for _, f := range p.frames() {
		switch f := f.(type) {
		case *xh2.MetaHeadersFrame:
			heads = append(heads, f.StreamID)
		case *dataCopy:
			if f.StreamID == 1 {
				bigData = true
			} else if string(f.Data) == "small" && f.End {
				small = true
			}
		}
	}
	if len(heads) != 2 || !small || bigData {
		t.Fatalf("OutputSmall sent heads %v, the small body %v, big DATA %v", heads, small, bigData)
	}
}
