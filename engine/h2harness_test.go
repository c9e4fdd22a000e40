//go:build unix

package engine

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	xh2 "golang.org/x/net/http2"

	"github.com/gwist/gwist/http2"
	"golang.org/x/net/http2/hpack"
)

// h2peer speaks HTTP/2 (h2c by prior knowledge) over a harness connection,
// with x/net's Framer: frames are built into a buffer and sent as one read;
// what the server wrote is parsed into frames.
type h2peer struct {
	*peer
	out    bytes.Buffer
	fr     *xh2.Framer // writes to out
	enc    *hpack.Encoder
	encBuf bytes.Buffer
	dec    *hpack.Decoder
	got    bytes.Buffer // server bytes not yet parsed
}

// dialH2 opens an h2c connection and sends the preface and SETTINGS (and,
// with ack, the server's SETTINGS acknowledged).
func (h *harness) dialH2(ack bool) *h2peer {
	h.t.Helper()
	p := &h2peer{peer: h.dial()}
	p.fr = xh2.NewFramer(&p.out, nil)
	p.enc = hpack.NewEncoder(&p.encBuf)
	p.dec = hpack.NewDecoder(4096, nil)
	p.out.WriteString(xh2.ClientPreface)
	_ = p.fr.WriteSettings()
	if ack {
		_ = p.fr.WriteSettingsAck()
	}
	p.flush()
	return p
}

// flush sends the frames built so far.
func (p *h2peer) flush() {
	p.send(p.out.String())
	p.out.Reset()
}

// post opens stream id with a POST to path declaring length body bytes,
// and sends first (without END_STREAM).
func (p *h2peer) post(id uint32, path string, length int, first string) {
	p.encBuf.Reset()
	for _, f := range [][2]string{{":method", "POST"}, {":scheme", "http"}, {":path", path},
		{":authority", "x"}, {"content-length", strconv.Itoa(length)}} {
		_ = p.enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	_ = p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: id, BlockFragment: p.encBuf.Bytes(), EndHeaders: true})
	_ = p.fr.WriteData(id, false, []byte(first))
	p.flush()
}

// frames returns the frames the server sent since the last call.
func (p *h2peer) frames() []xh2.Frame {
	p.got.WriteString(p.read())
	fr := xh2.NewFramer(nil, &p.got)
	fr.ReadMetaHeaders = p.dec
	var fs []xh2.Frame
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return fs
		}
		fs = append(fs, f)
	}
}

// A peer that does not acknowledge the server's SETTINGS gets GOAWAY
// SETTINGS_TIMEOUT after 5 s, and the connection closes.
func TestHTTP2SettingsTimeout(t *testing.T) {
	h := newHarness(t, Config{Inline: true, H2C: true}, hello)
	p := h.dialH2(false)
	p.frames()
	h.advance(http2.DefaultSettingsTimeout - tickInterval)
	for _, f := range p.frames() {
		if _, ok := f.(*xh2.GoAwayFrame); ok {
			t.Fatal("GOAWAY before the timeout")
		}
	}
	h.advance(tickInterval)
	h.advance(tickInterval)
	var goAway *xh2.GoAwayFrame
	for _, f := range p.frames() {
		if g, ok := f.(*xh2.GoAwayFrame); ok {
			goAway = g
		}
	}
	if goAway == nil || goAway.ErrCode != xh2.ErrCodeSettingsTimeout {
		t.Fatalf("GOAWAY %v", goAway)
	}
	h.advance(lingerTimeout)
	if !p.closed() {
		t.Fatal("not closed after GOAWAY")
	}

	acked := h.dialH2(true)
	h.advance(DefaultIdleTimeout / 2)
	for _, f := range acked.frames() {
		if _, ok := f.(*xh2.GoAwayFrame); ok {
			t.Fatal("GOAWAY although SETTINGS were acknowledged")
		}
	}
}

// A buffered HTTP/2 request body that stalls is answered 408 after
// BodyReadTimeout, then the stream is reset (NO_ERROR), a sweep or two
// later (apart from the response: curl 7.88 drops a response whose reset
// comes in the same read); before, nothing.
func TestHTTP2BodyReadTimeoutOnTheClock(t *testing.T) {
	h := newHarness(t, Config{Inline: true, H2C: true}, hello)
	p := h.dialH2(true)
	p.post(1, "/", 100, "abc")
	p.frames()
	h.advance(DefaultBodyReadTimeout - 500*time.Millisecond)
	for _, f := range p.frames() {
		if f.Header().StreamID == 1 {
			t.Fatalf("before the timeout: %v", f)
		}
	}
	h.advance(500 * time.Millisecond)
	var status string
	var rst *xh2.RSTStreamFrame
	for _, f := range p.frames() {
		switch f := f.(type) {
		case *xh2.MetaHeadersFrame:
			status = f.PseudoValue("status")
		case *xh2.RSTStreamFrame:
			rst = f
		}
	}
	if status != "408" || rst != nil {
		t.Fatalf("at the timeout: status %q, reset %v", status, rst)
	}
	h.advance(tickInterval)
	h.advance(tickInterval)
	for _, f := range p.frames() {
		if f, ok := f.(*xh2.RSTStreamFrame); ok {
			rst = f
		}
	}
	if rst == nil || rst.ErrCode != xh2.ErrCodeNo {
		t.Fatalf("after the timeout: reset %v", rst)
	}
}
