package http2

import (
	"testing"

	xh2 "golang.org/x/net/http2"
)

// RFC 8441: with EnableConnectProtocol the server advertises
// SETTINGS_ENABLE_CONNECT_PROTOCOL and delivers an extended CONNECT with
// its :protocol and :path; without it, or malformed, the stream is reset.
func TestExtendedConnect(t *testing.T) {
	advertised := func(cfg Config) bool {
		p := newPeer(t, cfg)
		p.toSrv.WriteString(xh2.ClientPreface)
		p.fr.WriteSettings()
		p.pump()
		sf, ok := p.read().(*xh2.SettingsFrame) // the server's first frame
		if !ok || sf.IsAck() {
			t.Fatal("the first frame is not the server's SETTINGS")
		}
		v, ok := sf.Value(xh2.SettingEnableConnectProtocol)
		return ok && v == 1
	}
	if !advertised(Config{EnableConnectProtocol: true}) || advertised(Config{}) {
		t.Fatal("SETTINGS_ENABLE_CONNECT_PROTOCOL advertised when, and only when, enabled")
	}

	p := newPeer(t, Config{EnableConnectProtocol: true})
	p.handshake()
	p.request(1, "CONNECT", "/chat?room=1", false, ":protocol", "websocket", "sec-websocket-version", "13")
	p.pump()
	reqs := eventsOf(p.takeEvents(), EventRequest)
	if len(reqs) != 1 {
		t.Fatal("extended CONNECT not delivered")
	}
	r := reqs[0].Request
	if r.Method != "CONNECT" || r.Protocol != "websocket" || r.Path != "/chat?room=1" || r.Scheme != "http" {
		t.Fatalf("request %+v", r)
	}
	// Malformed extended CONNECTs: no :path, or :protocol on a GET.
	fields := func(id uint32, f ...string) {
		p.fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: id, BlockFragment: p.headerBlock(f...), EndHeaders: true})
	}
	fields(3, ":method", "CONNECT", ":protocol", "websocket", ":scheme", "http", ":authority", "x")
	p.expectRST(3, ErrCodeProtocol)
	p.request(5, "GET", "/", true, ":protocol", "websocket")
	p.expectRST(5, ErrCodeProtocol)

	off := newPeer(t, Config{})
	off.handshake()
	off.request(1, "CONNECT", "/chat", false, ":protocol", "websocket")
	off.expectRST(1, ErrCodeProtocol)
}
