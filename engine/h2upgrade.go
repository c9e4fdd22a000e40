//go:build unix

package engine

import (
	"bytes"
	"strings"

	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/http2"
)

// h2c by `Upgrade: h2c` (RFC 7540 section 3.2): an HTTP/1.1 request without
// a body that asks for it, on a plaintext connection with nothing else in
// flight, is answered "101 Switching Protocols"; the connection then speaks
// HTTP/2 and the request is answered on stream 1. A request that asks for
// it with a body, or with a bad HTTP2-Settings, is served in HTTP/1.1 (the
// server may ignore an upgrade).

// wantsH2c reports whether req, whose Upgrade field is upgrade, asks to
// upgrade to h2c, and its settings.
func wantsH2c(req *http1.Request, upgrade string) (settings string, ok bool) {
	if req.ProtoMinor != 1 || req.ContentLength > 0 || req.Chunked {
		return "", false
	}
	if !hasToken(upgrade, "h2c") || !hasToken(req.Header("Connection"), "upgrade") ||
		!hasToken(req.Header("Connection"), "http2-settings") {
		return "", false
	}
	settings = req.Header("HTTP2-Settings")
	return settings, settings != ""
}

// hasToken reports whether the comma-separated list v holds token
// (case-insensitively).
func hasToken(v, token string) bool {
	for v != "" {
		var t string
		t, v, _ = strings.Cut(v, ",")
		if strings.EqualFold(strings.TrimSpace(t), token) {
			return true
		}
	}
	return false
}

// upgradeH2c switches c to HTTP/2 for ex, which asked for it, and reports
// whether it did. Loop only, with nothing of the connection in flight.
func (d *h1Driver) upgradeH2c(ex *Exchange, settings string) bool {
	c := d.c
	h2 := newH2Driver(c)
	if err := h2.h2.Upgrade(settings); err != nil {
		return false
	}
	c.out = append(c.out, http2.UpgradeResponse...)
	d.releaseParser()
	c.proto = h2
	c.srv.h2conns.Add(1)
	ex.Request.ProtoMajor, ex.Request.ProtoMinor = 2, 0
	s := &h2Stream{d: h2, id: 1, ex: ex, room: make(chan struct{}, 1), declared: -1}
	ex.resp = s
	h2.streams[1] = s
	h2.dispatch(s)
	h2.serve() // the client preface and what follows, if already here
	return true
}

// firstLineIsHTTP1 looks at the first line of a plaintext connection that
// may speak either protocol. A line that names an HTTP version anywhere
// ("HTTP/", in any case), or starts like a request line (a method, a
// space and a request target: http1.LooksLikeRequestLine), is left to the
// HTTP/1 parser, which answers what is wrong with it (400, 505, ...), and
// the connection is HTTP/1 for good. Any other complete first line is
// neither an HTTP/1 request nor the HTTP/2 preface: the connection is
// closed without an answer, as HTTP/2 requires for a bad preface (RFC 9113
// section 3.4; h2spec checks that nothing is sent) and as the TLS port
// does for bytes that are not TLS. An incomplete line waits for more.
func (d *h1Driver) firstLineIsHTTP1(buf []byte) bool {
	i := bytes.IndexByte(buf, '\n')
	if i < 0 {
		return true // not yet decided; the parser's own limits apply meanwhile
	}
	if line := bytes.TrimSuffix(buf[:i], []byte("\r")); namesHTTPVersion(line) || http1.LooksLikeRequestLine(line) {
		d.spoke = true
		return true
	}
	c := d.c
	c.srv.logDebug("closing a plaintext connection that opened with neither an HTTP/1 request nor the HTTP/2 preface", c)
	c.stopReading()
	c.discardInput()
	c.closeNow()
	return false
}

// namesHTTPVersion reports whether line holds "HTTP/" in any case.
func namesHTTPVersion(line []byte) bool {
	for i := 0; i+5 <= len(line); i++ {
		if bytes.EqualFold(line[i:i+5], []byte("HTTP/")) {
			return true
		}
	}
	return false
}
