package http2

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/gwist/gwist/http1"
	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// peer drives a Conn in memory, with x/net's Framer as the client.
type peer struct {
	t       *testing.T
	c       *Conn
	toSrv   bytes.Buffer // bytes the client wrote, not yet fed
	fromSrv bytes.Buffer // bytes the server wrote, not yet read
	fr      *xh2.Framer
	enc     *hpack.Encoder
	encBuf  bytes.Buffer
	events  []Event // with Data copied
	budget  int     // Output's max per pump (0: no limit)
	// consume: give DATA back as soon as it is delivered.
	consume bool
}

func newPeer(t *testing.T, cfg Config) *peer {
	t.Helper()
	p := &peer{t: t, c: NewConn(cfg, time.Now()), consume: true}
	p.fr = xh2.NewFramer(&p.toSrv, &p.fromSrv)
	p.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	p.fr.MaxHeaderListSize = 1 << 20
	p.enc = hpack.NewEncoder(&p.encBuf)
	return p
}

// handshake sends the preface and empty SETTINGS, and reads the server's
// SETTINGS, WINDOW_UPDATE and the ACK.
func (p *peer) handshake(settings ...xh2.Setting) {
	p.t.Helper()
	p.toSrv.WriteString(xh2.ClientPreface)
	p.fr.WriteSettings(settings...)
	p.pump()
	sawSettings, sawAck := false, false
	for !(sawSettings && sawAck) {
		f := p.read()
		if sf, ok := f.(*xh2.SettingsFrame); ok {
			if sf.IsAck() {
				sawAck = true
			} else {
				sawSettings = true
				p.fr.WriteSettingsAck()
			}
		}
	}
	p.pump()
}

// pump feeds what the client wrote, collects events, and takes the output.
func (p *peer) pump() {
	p.t.Helper()
	buf := p.toSrv.Bytes()
	for {
		n := p.c.Feed(buf)
		buf = buf[n:]
		p.drain()
		if n == 0 {
			break
		}
	}
	rest := append([]byte(nil), buf...)
	p.toSrv.Reset()
	p.toSrv.Write(rest)
	out := p.c.Output(nil, p.budget)
	p.fromSrv.Write(out)
	p.drain()
}

func (p *peer) drain() {
	for {
		ev, ok := p.c.Next()
		if !ok {
			return
		}
		if ev.Kind == EventData {
			ev.Data = append([]byte(nil), ev.Data...)
			if p.consume {
				p.c.Consumed(ev.Stream, len(ev.Data))
			}
		}
		p.events = append(p.events, ev)
	}
}

// takeEvents returns and forgets the events seen so far.
func (p *peer) takeEvents() []Event {
	e := p.events
	p.events = nil
	return e
}

// read reads one frame the server wrote (failing when there is none).
func (p *peer) read() xh2.Frame {
	p.t.Helper()
	f, err := p.fr.ReadFrame()
	if err != nil {
		p.t.Fatalf("reading a server frame: %v", err)
	}
	return f
}

// frames reads every frame the server has written.
func (p *peer) frames() []xh2.Frame {
	p.t.Helper()
	var fs []xh2.Frame
	for p.fromSrv.Len() > 0 {
		f, err := p.fr.ReadFrame()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				break
			}
			p.t.Fatalf("reading a server frame: %v", err)
		}
		fs = append(fs, copyFrame(f))
	}
	return fs
}

// copyFrame keeps what tests look at of frames whose buffers are reused.
func copyFrame(f xh2.Frame) xh2.Frame {
	if d, ok := f.(*xh2.DataFrame); ok {
		return &dataCopy{StreamID: d.StreamID, Data: append([]byte(nil), d.Data()...), End: d.StreamEnded()}
	}
	return f
}

type dataCopy struct {
	xh2.Frame
	StreamID uint32
	Data     []byte
	End      bool
}

func (p *peer) headerBlock(fields ...string) []byte {
	p.encBuf.Reset()
	for i := 0; i+1 < len(fields); i += 2 {
		p.enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]})
	}
	return append([]byte(nil), p.encBuf.Bytes()...)
}

// request sends a HEADERS frame with the usual pseudo-fields plus extra.
func (p *peer) request(id uint32, method, path string, end bool, extra ...string) {
	fields := append([]string{":method", method, ":scheme", "http", ":path", path, ":authority", "example.com"}, extra...)
	p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: id, BlockFragment: p.headerBlock(fields...), EndStream: end, EndHeaders: true})
}

// expectGoAway asserts that the connection failed with code.
func (p *peer) expectGoAway(code ErrCode) {
	p.t.Helper()
	p.pump()
	for _, f := range p.frames() {
		if g, ok := f.(*xh2.GoAwayFrame); ok {
			if g.ErrCode != code {
				p.t.Fatalf("GOAWAY %v, want %v (%v)", g.ErrCode, code, p.c.Err())
			}
			if !p.c.Finished() {
				p.t.Fatal("GOAWAY sent but Finished is false")
			}
			return
		}
	}
	p.t.Fatalf("no GOAWAY %v (err %v)", code, p.c.Err())
}

// expectRST asserts that the server reset stream id with code.
func (p *peer) expectRST(id uint32, code ErrCode) {
	p.t.Helper()
	p.pump()
	for _, f := range p.frames() {
		switch f := f.(type) {
		case *xh2.RSTStreamFrame:
			if f.StreamID == id {
				if f.ErrCode != code {
					p.t.Fatalf("RST_STREAM %d %v, want %v", id, f.ErrCode, code)
				}
				return
			}
		case *xh2.GoAwayFrame:
			p.t.Fatalf("GOAWAY %v (%v), want RST_STREAM %d %v", f.ErrCode, p.c.Err(), id, code)
		}
	}
	p.t.Fatalf("no RST_STREAM on %d", id)
}

// respond answers stream id with status and body, then releases it.
func (p *peer) respond(id uint32, status int, body string) {
	p.t.Helper()
	if err := p.c.WriteHeaders(id, status, []http1.HeaderField{{Name: "Content-Type", Value: "text/plain"}}, body == ""); err != nil {
		p.t.Fatal(err)
	}
	if body != "" {
		if n, err := p.c.WriteData(id, []byte(body), true); err != nil || n != len(body) {
			p.t.Fatalf("WriteData: %d, %v", n, err)
		}
	}
	p.c.Release(id)
}

func eventsOf(evs []Event, kind EventKind) []Event {
	var out []Event
	for _, e := range evs {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}
