package http2

import (
	"bytes"
	"testing"

	xh2 "golang.org/x/net/http2"
)

// Connection and stream errors of RFC 9113, each driven with the Framer.
func TestProtocolErrors(t *testing.T) {
	cases := []struct {
		name   string
		send   func(p *peer)
		stream uint32  // 0: a connection error
		code   ErrCode //
	}{
		{"DATA on idle stream", func(p *peer) { p.fr.WriteData(1, false, []byte("x")) }, 0, ErrCodeProtocol},
		{"RST_STREAM on idle stream", func(p *peer) { p.fr.WriteRSTStream(1, ErrCodeCancel) }, 0, ErrCodeProtocol},
		{"WINDOW_UPDATE on idle stream", func(p *peer) { p.fr.WriteWindowUpdate(1, 1) }, 0, ErrCodeProtocol},
		{"even stream id", func(p *peer) { p.request(2, "GET", "/", true) }, 0, ErrCodeProtocol},
		{"stream id going down", func(p *peer) {
			p.request(5, "GET", "/", true)
			p.request(3, "GET", "/", true)
		}, 0, ErrCodeStreamClosed},
		{"HEADERS on closed stream", func(p *peer) {
			p.request(1, "GET", "/", true)
			p.pump()
			p.respond(1, 204, "")
			p.pump()
			p.request(1, "GET", "/", true)
		}, 0, ErrCodeStreamClosed},
		{"DATA after END_STREAM", func(p *peer) {
			p.request(1, "GET", "/", true)
			p.fr.WriteData(1, true, []byte("x"))
		}, 1, ErrCodeStreamClosed},
		{"DATA after client RST_STREAM", func(p *peer) {
			p.request(1, "POST", "/", false)
			p.fr.WriteRSTStream(1, ErrCodeCancel)
			p.fr.WriteData(1, true, []byte("x"))
		}, 1, ErrCodeStreamClosed},
		{"HEADERS in half-closed (remote)", func(p *peer) {
			p.request(1, "GET", "/", true)
			p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: p.headerBlock("x", "y"), EndStream: true, EndHeaders: true})
		}, 1, ErrCodeStreamClosed},
		{"trailers without END_STREAM", func(p *peer) {
			p.request(1, "POST", "/", false)
			p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: p.headerBlock("x", "y"), EndHeaders: true})
		}, 1, ErrCodeProtocol},
		{"pseudo-field in trailers", func(p *peer) {
			p.request(1, "POST", "/", false)
			p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: p.headerBlock(":path", "/"), EndStream: true, EndHeaders: true})
		}, 1, ErrCodeProtocol},
		{"DATA on stream 0", func(p *peer) { p.fr.AllowIllegalWrites = true; p.fr.WriteData(0, false, []byte("x")) }, 0, ErrCodeProtocol},
		{"frame larger than MAX_FRAME_SIZE", func(p *peer) {
			p.request(1, "POST", "/", false)
			p.fr.WriteData(1, false, make([]byte, 16<<10+1))
		}, 0, ErrCodeFrameSize},
		{"HEADERS depending on itself", func(p *peer) {
			p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: p.headerBlock(":method", "GET", ":scheme", "http", ":path", "/"),
				EndStream: true, EndHeaders: true, Priority: xh2.PriorityParam{StreamDep: 1, Weight: 1}})
		}, 1, ErrCodeProtocol},
		{"PRIORITY depending on itself", func(p *peer) { p.fr.WritePriority(3, xh2.PriorityParam{StreamDep: 3}) }, 3, ErrCodeProtocol},
		{"CONTINUATION without HEADERS", func(p *peer) { p.fr.WriteContinuation(1, true, p.headerBlock("x", "y")) }, 0, ErrCodeProtocol},
		{"other frame inside a header block", func(p *peer) {
			p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: p.headerBlock(":method", "GET"), EndStream: true})
			p.fr.WritePing(false, [8]byte{})
		}, 0, ErrCodeProtocol},
		{"bad HPACK", func(p *peer) {
			p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: []byte{0xff, 0xff, 0xff, 0xff, 0x7f}, EndStream: true, EndHeaders: true})
		}, 0, errCodeCompression},
		{"PUSH_PROMISE from client", func(p *peer) {
			p.fr.WritePushPromise(xh2.PushPromiseParam{StreamID: 1, PromiseID: 2, BlockFragment: p.headerBlock(":method", "GET"), EndHeaders: true})
		}, 0, ErrCodeProtocol},
		{"SETTINGS ENABLE_PUSH 2", func(p *peer) { p.fr.WriteSettings(xh2.Setting{ID: xh2.SettingEnablePush, Val: 2}) }, 0, ErrCodeProtocol},
		{"SETTINGS MAX_FRAME_SIZE too small", func(p *peer) { p.fr.WriteSettings(xh2.Setting{ID: xh2.SettingMaxFrameSize, Val: 100}) }, 0, ErrCodeProtocol},
		{"SETTINGS window too large", func(p *peer) {
			p.fr.WriteSettings(xh2.Setting{ID: xh2.SettingInitialWindowSize, Val: 1 << 31})
		}, 0, ErrCodeFlowControl},
		{"SETTINGS with too many entries", func(p *peer) {
			s := make([]xh2.Setting, maxSettingsEntries+1)
			for i := range s {
				s[i] = xh2.Setting{ID: xh2.SettingID(0x100 + i), Val: 1}
			}
			p.fr.WriteSettings(s...)
		}, 0, ErrCodeProtocol},
		{"SETTINGS ACK with payload", func(p *peer) { p.fr.WriteRawFrame(xh2.FrameSettings, xh2.FlagSettingsAck, 0, []byte{0, 0, 0, 0, 0, 0}) }, 0, ErrCodeFrameSize},
		{"PING wrong length", func(p *peer) { p.fr.WriteRawFrame(xh2.FramePing, 0, 0, []byte{1}) }, 0, ErrCodeFrameSize},
		{"WINDOW_UPDATE 0 on connection", func(p *peer) { p.fr.WriteRawFrame(xh2.FrameWindowUpdate, 0, 0, []byte{0, 0, 0, 0}) }, 0, ErrCodeProtocol},
		{"WINDOW_UPDATE 0 on stream", func(p *peer) {
			p.request(1, "GET", "/", true)
			p.fr.WriteRawFrame(xh2.FrameWindowUpdate, 0, 1, []byte{0, 0, 0, 0})
		}, 1, ErrCodeProtocol},
		{"connection window overflow", func(p *peer) {
			p.fr.WriteWindowUpdate(0, 1<<31-1)
			p.fr.WriteWindowUpdate(0, 1<<31-1)
		}, 0, ErrCodeFlowControl},
		{"stream window overflow", func(p *peer) {
			p.request(1, "GET", "/", true)
			p.fr.WriteWindowUpdate(1, 1<<31-1)
		}, 1, ErrCodeFlowControl},
		{"SETTINGS window change overflows a stream", func(p *peer) {
			p.request(1, "GET", "/", true)
			p.fr.WriteWindowUpdate(1, 1<<31-1-65535)
			p.fr.WriteSettings(xh2.Setting{ID: xh2.SettingInitialWindowSize, Val: 65536})
		}, 0, ErrCodeFlowControl},
		{"stream window exceeded", func(p *peer) {
			p.consume = false
			p.request(1, "POST", "/", false)
			for range 5 {
				p.fr.WriteData(1, false, make([]byte, 16<<10))
			}
		}, 1, ErrCodeFlowControl},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newPeer(t, Config{StreamWindow: 65535})
			p.handshake()
			tc.send(p)
			if tc.stream == 0 {
				p.expectGoAway(tc.code)
			} else {
				p.expectRST(tc.stream, tc.code)
			}
		})
	}
}

func TestMaxConcurrentStreams(t *testing.T) {
	p := newPeer(t, Config{MaxConcurrentStreams: 2})
	p.handshake()
	p.request(1, "POST", "/", false)
	p.request(3, "POST", "/", false)
	p.request(5, "POST", "/", false)
	p.expectRST(5, ErrCodeRefusedStream)
	if n := len(eventsOf(p.takeEvents(), EventRequest)); n != 2 {
		t.Fatalf("%d requests delivered, want 2", n)
	}
	// Ending a stream frees its slot.
	p.fr.WriteData(1, true, nil)
	p.pump()
	p.respond(1, 200, "ok")
	p.pump() // stream 1 counts until its END_STREAM is out
	p.request(7, "GET", "/", true)
	p.pump()
	if n := len(eventsOf(p.takeEvents(), EventRequest)); n != 1 {
		t.Fatalf("stream 7 not delivered (%d)", n)
	}
}

// A handler still running for a stream the client reset keeps its slot:
// new streams are refused until the application releases it.
func TestHandlerSlotsHeldAfterReset(t *testing.T) {
	p := newPeer(t, Config{MaxConcurrentStreams: 2})
	p.handshake()
	p.request(1, "GET", "/", true)
	p.request(3, "GET", "/", true)
	p.fr.WriteRSTStream(1, ErrCodeCancel)
	p.fr.WriteRSTStream(3, ErrCodeCancel)
	p.request(5, "GET", "/", true)
	p.expectRST(5, ErrCodeRefusedStream)
	evs := p.takeEvents()
	if len(eventsOf(evs, EventReset)) != 2 {
		t.Fatalf("events %v", evs)
	}
	p.c.Release(1)
	p.request(7, "GET", "/", true)
	p.pump()
	if n := len(eventsOf(p.takeEvents(), EventRequest)); n != 1 {
		t.Fatal("slot not given back by Release")
	}
}

// CVE-2023-44487: streams opened and reset at once.
func TestRapidReset(t *testing.T) {
	p := newPeer(t, Config{})
	p.handshake()
	id := uint32(1)
	for range DefaultMaxResetScore + 1 {
		p.request(id, "GET", "/", true)
		p.fr.WriteRSTStream(id, ErrCodeCancel)
		id += 2
	}
	p.pump()
	// The application releases what it was handed, as an engine would.
	for _, e := range eventsOf(p.takeEvents(), EventRequest) {
		p.c.Release(e.Stream)
	}
	p.expectGoAway(ErrCodeEnhanceYourCalm)

	// Streams that complete pay back for the ones a client cancels.
	p = newPeer(t, Config{})
	p.handshake()
	id = 1
	for range 3 * DefaultMaxResetScore {
		p.request(id, "GET", "/", true)
		p.request(id+2, "GET", "/", true)
		p.fr.WriteRSTStream(id, ErrCodeCancel)
		p.pump()
		p.c.Release(id)
		p.respond(id+2, 200, "ok")
		p.pump()
		id += 4
	}
	p.pump()
	if p.c.Finished() {
		t.Fatalf("a client cancelling half its streams was cut off: %v", p.c.Err())
	}
}

// "MadeYouReset": streams the server resets after the client's protocol
// errors count as well.
func TestServerResetsCount(t *testing.T) {
	p := newPeer(t, Config{})
	p.handshake()
	id := uint32(1)
	for range DefaultMaxResetScore + 1 {
		p.request(id, "POST", "/", false)
		p.fr.WriteWindowUpdate(id, 1<<31-1) // overflow: the server resets
		p.pump()
		for _, e := range eventsOf(p.takeEvents(), EventReset) {
			p.c.Release(e.Stream)
		}
		id += 2
	}
	p.expectGoAway(ErrCodeEnhanceYourCalm)
}

// CVE-2023-45288: a header block that never ends.
func TestContinuationFlood(t *testing.T) {
	p := newPeer(t, Config{})
	p.handshake()
	p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: p.headerBlock(":method", "GET"), EndStream: true})
	frag := p.headerBlock("x-a", string(bytes.Repeat([]byte("a"), 1000)))
	sent := 0
	for !p.c.Finished() && sent < 1000 {
		p.fr.WriteContinuation(1, false, frag)
		sent++
		p.pump()
	}
	if sent*len(frag) > 3*DefaultMaxHeaderListSize+16<<10 {
		t.Fatalf("accepted %d bytes of header block", sent*len(frag))
	}
	p.expectGoAway(ErrCodeEnhanceYourCalm)

	// Empty CONTINUATION frames count their 9 bytes each.
	p = newPeer(t, Config{})
	p.handshake()
	p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: p.headerBlock(":method", "GET"), EndStream: true})
	for range 10000 {
		p.fr.WriteContinuation(1, false, nil)
	}
	p.expectGoAway(ErrCodeEnhanceYourCalm)
}

// SETTINGS and PING floods: answers the peer does not read are capped.
func TestControlFlood(t *testing.T) {
	for _, kind := range []string{"ping", "settings", "rst"} {
		t.Run(kind, func(t *testing.T) {
			p := newPeer(t, Config{MaxControlQueued: 100})
			p.handshake()
			for i := range 101 {
				switch kind {
				case "ping":
					p.fr.WritePing(false, [8]byte{})
				case "settings":
					p.fr.WriteSettings()
				case "rst":
					// DATA on a closed stream is answered with RST_STREAM.
					if i == 0 {
						p.request(1, "GET", "/", true)
					}
					p.fr.WriteData(1, false, nil)
				}
			}
			// Feed without taking the output, as when the peer stops reading.
			buf := p.toSrv.Bytes()
			for len(buf) > 0 {
				n := p.c.Feed(buf)
				buf = buf[n:]
				p.drain()
			}
			p.toSrv.Reset()
			if p.c.Err() == nil {
				t.Fatal("flood not cut off")
			}
			p.expectGoAway(ErrCodeEnhanceYourCalm)
		})
	}
}

func TestGracefulShutdown(t *testing.T) {
	p := newPeer(t, Config{})
	p.handshake()
	p.request(1, "GET", "/", true)
	p.pump()
	p.c.Shutdown()
	p.pump()
	var g *xh2.GoAwayFrame
	for _, f := range p.frames() {
		if f, ok := f.(*xh2.GoAwayFrame); ok {
			g = f
		}
	}
	if g == nil || g.ErrCode != ErrCodeNo || g.LastStreamID != 1 {
		t.Fatalf("GOAWAY %v", g)
	}
	if p.c.Finished() {
		t.Fatal("finished with stream 1 in flight")
	}
	// A stream after the last id is ignored.
	p.request(3, "GET", "/", true)
	p.pump()
	if n := len(eventsOf(p.takeEvents(), EventRequest)); n != 1 {
		t.Fatalf("%d requests delivered after GOAWAY, want only stream 1", n)
	}
	p.respond(1, 200, "bye")
	p.pump()
	if !p.c.Finished() {
		t.Fatal("not finished after the last stream")
	}
	if d := p.frames(); len(d) < 2 {
		t.Fatalf("stream 1's response not sent: %v", d)
	}
}

func TestPeerGoAway(t *testing.T) {
	p := newPeer(t, Config{})
	p.handshake()
	p.request(1, "GET", "/", true)
	p.fr.WriteGoAway(1, ErrCodeNo, nil)
	p.pump()
	if ev := eventsOf(p.takeEvents(), EventGoAway); len(ev) != 1 {
		t.Fatal("no EventGoAway")
	}
	if p.c.Finished() {
		t.Fatal("finished with a stream in flight")
	}
	p.respond(1, 200, "x")
	p.pump()
	if !p.c.Finished() {
		t.Fatal("not finished")
	}
}

func TestWritesAfterReset(t *testing.T) {
	p := newPeer(t, Config{})
	p.handshake()
	p.request(1, "GET", "/", true)
	p.pump()
	p.c.WriteHeaders(1, 200, nil, false)
	p.c.WriteData(1, []byte("partial"), false)
	p.fr.WriteRSTStream(1, ErrCodeCancel)
	p.pump()
	if _, err := p.c.WriteData(1, []byte("more"), true); err != ErrStreamClosed {
		t.Fatalf("WriteData after reset: %v", err)
	}
	if p.c.queued != 0 {
		t.Fatalf("%d bytes still queued for a reset stream", p.c.queued)
	}
	p.c.Release(1)
	if len(p.c.streams) != 0 || p.c.handlers != 0 {
		t.Fatal("reset stream kept after Release")
	}
}
