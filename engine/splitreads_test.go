//go:build unix

package engine

import (
	"net/netip"
	"strings"
	"testing"
)

// whoami answers every request with the connection's remote address.
func whoami(ex *Exchange) {
	ex.Status = 200
	ex.Body = append(ex.Body, ex.RemoteAddr().String()...)
}

// sendInPieces delivers s to the engine n bytes at a time, each piece a
// read of its own.
func (p *peer) sendInPieces(s string, n int) {
	p.h.t.Helper()
	for i := 0; i < len(s); i += n {
		p.send(s[i:min(i+n, len(s))])
	}
}

// A request whose bytes arrive a few at a time, each piece a read of its
// own (cut at every 7th byte, so in the request line, the headers and the
// body), is parsed whole.
func TestRequestSplitAcrossReads(t *testing.T) {
	for _, n := range []int{1, 7} {
		h := newHarness(t, Config{Inline: true}, func(ex *Exchange) {
			ex.Status = 200
			ex.Body = append(ex.Body, ex.Request.Body...)
		})
		p := h.dial()
		p.sendInPieces("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nwxyz", n)
		if got := p.read(); !strings.HasPrefix(got, "HTTP/1.1 200 ") || !strings.HasSuffix(got, "\r\n\r\nwxyz") {
			t.Fatalf("pieces of %d bytes: %q", n, got)
		}
	}
}

// A PROXY header (version 1 and 2) and the request behind it arriving five
// bytes a read are parsed as their bytes arrive: the header's source is the
// request's remote address.
func TestProxyHeaderSplitAcrossReads(t *testing.T) {
	v2 := "\r\n\r\n\x00\r\nQUIT\n\x21\x11\x00\x1b" + // signature, PROXY over TCP4, 12 + 15 bytes
		"\xcb\x00\x71\x0d" + "\x7f\x00\x00\x01" + "\xcb\x31" + "\x00\x50" + // 203.0.113.13:52017 -> 127.0.0.1:80
		"\x02\x00\x0cexample.com!" // an authority TLV
	for name, tc := range map[string]struct{ header, remote string }{
		"v1": {"PROXY TCP4 203.0.113.12 127.0.0.1 52000 80\r\n", "203.0.113.12:52000"},
		"v2": {v2, "203.0.113.13:52017"},
	} {
		cfg := Config{Inline: true, ProxyProtocol: &ProxyProtocol{Trusted: []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24")}}}
		h := newHarness(t, cfg, whoami)
		p := h.dial()
		p.sendInPieces(tc.header+"GET /whoami HTTP/1.1\r\nHost: x\r\n\r\n", 5)
		if got := p.read(); !strings.HasPrefix(got, "HTTP/1.1 200 ") || !strings.HasSuffix(got, "\r\n\r\n"+tc.remote) {
			t.Fatalf("%s: %q", name, got)
		}
		if st := h.srv.ProxyStats(); st.Accepted != 1 {
			t.Fatalf("%s: %+v", name, st)
		}
	}
}

// From outside the trusted networks, "PRO" alone could begin a PROXY
// signature: the engine waits for more, and "PROPFIND" is then served as
// a request, with the connection's own address.
func TestProxyUntrustedPrefixIsARequest(t *testing.T) {
	cfg := Config{Inline: true, ProxyProtocol: &ProxyProtocol{Trusted: []netip.Prefix{netip.MustParsePrefix("198.51.100.0/24")}}}
	h := newHarness(t, cfg, whoami)
	p := h.dial()
	p.send("PRO")
	if got := p.read(); got != "" || p.closed() {
		t.Fatalf("after PRO: %q, closed %v", got, p.closed())
	}
	p.send("PFIND /whoami HTTP/1.1\r\nHost: x\r\n\r\n")
	if got := p.read(); !strings.HasPrefix(got, "HTTP/1.1 200 ") || !strings.HasSuffix(got, "\r\n\r\n192.0.2.1:4242") || p.closed() {
		t.Fatalf("PROPFIND: %q, closed %v", got, p.closed())
	}
	if st := h.srv.ProxyStats(); st != (ProxyStats{}) {
		t.Fatalf("stats %+v", st)
	}
}
