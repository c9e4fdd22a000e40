package http2

import (
	"strings"

	"github.com/gwist/gwist/http1"
	"golang.org/x/net/http2/hpack"
)

// headerBlock is the header block being received: a HEADERS frame and the
// CONTINUATION frames after it, decoded by the streaming HPACK decoder as
// each fragment arrives (nothing of the encoded block is buffered).
type headerBlock struct {
	active    bool
	id        uint32
	st        *stream // nil: decode only (a refused or ignored stream)
	trailers  bool    // a trailer section of an open stream
	endStream bool
	raw       int    // encoded bytes so far, 9 counted per frame
	size      uint32 // decoded size as RFC 9113 counts it
	tooBig    bool
	invalid   bool // malformed: a stream error PROTOCOL_ERROR at the end
	regular   bool // a regular field was seen (pseudo-fields must precede)
	req       *Request
	fields    []http1.HeaderField // trailers
	clSeen    bool
}

// startBlock begins decoding a header block for stream id.
func (c *Conn) startBlock(id uint32, st *stream, trailers, endStream bool) {
	c.hb = headerBlock{active: true, id: id, st: st, trailers: trailers, endStream: endStream}
	if st != nil && !trailers {
		c.hb.req = &Request{ContentLength: -1}
	}
}

// blockFragment decodes one fragment; it reports false after failing the
// connection.
func (c *Conn) blockFragment(frag []byte) bool {
	c.hb.raw += frameHeaderLen + len(frag)
	if c.hb.raw > c.maxBlockBytes {
		// CVE-2023-45288: a header block that never ends (or ends far past
		// the list size) is cut off without decoding the rest.
		c.fail(ErrCodeEnhanceYourCalm, "header block too large")
		return false
	}
	if _, err := c.dec.Write(frag); err != nil {
		c.fail(errCodeCompression, "hpack: "+err.Error())
		return false
	}
	return true
}

// onField is the HPACK decoder's emit function.
func (c *Conn) onField(f hpack.HeaderField) {
	hb := &c.hb
	if hb.st == nil || hb.tooBig || hb.invalid {
		return
	}
	hb.size += f.Size()
	if hb.size > c.cfg.MaxHeaderListSize {
		hb.tooBig = true
		hb.req, hb.fields = nil, nil
		return
	}
	if len(f.Name) > 0 && f.Name[0] == ':' {
		if hb.trailers || hb.regular || !c.pseudo(f) {
			hb.invalid = true
		}
		return
	}
	hb.regular = true
	if !validFieldName(f.Name) || !validFieldValue(f.Value) {
		hb.invalid = true
		return
	}
	if hb.trailers {
		hb.fields = append(hb.fields, http1.HeaderField{Name: f.Name, Value: f.Value})
		return
	}
	switch f.Name {
	case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
		hb.invalid = true
		return
	case "te":
		if f.Value != "trailers" {
			hb.invalid = true
			return
		}
	case "content-length":
		n, ok := http1.ParseContentLength(f.Value)
		if !ok || (hb.clSeen && n != hb.req.ContentLength) {
			hb.invalid = true
			return
		}
		hb.clSeen = true
		hb.req.ContentLength = n
	case "host":
		if hb.req.Host == "" {
			hb.req.Host = f.Value
		}
	}
	hb.req.Header = append(hb.req.Header, http1.HeaderField{Name: f.Name, Value: f.Value})
}

// pseudo records a request pseudo-header field; false if it is unknown or
// repeated.
func (c *Conn) pseudo(f hpack.HeaderField) bool {
	r := c.hb.req
	var p *string
	switch f.Name {
	case ":method":
		p = &r.Method
	case ":scheme":
		p = &r.Scheme
	case ":path":
		p = &r.Path
	case ":authority":
		p = &r.Authority
	case ":protocol":
		if !c.cfg.EnableConnectProtocol {
			return false // no extended CONNECT without the setting
		}
		p = &r.Protocol
	default:
		return false // :status, anything else
	}
	if *p != "" || f.Value == "" {
		return false
	}
	*p = f.Value
	return true
}

// endBlock finishes the header block (END_HEADERS seen).
func (c *Conn) endBlock() {
	if err := c.dec.Close(); err != nil {
		c.fail(errCodeCompression, "hpack: "+err.Error())
		return
	}
	hb := c.hb
	c.hb = headerBlock{}
	st := hb.st
	if st == nil {
		return
	}
	switch {
	case hb.trailers:
		if hb.tooBig || hb.invalid {
			c.resetStream(st, ErrCodeProtocol)
			return
		}
		c.onTrailers(st, hb.fields)
	case hb.tooBig:
		c.answer431(st, hb.endStream)
	case hb.invalid || !validRequest(hb.req):
		c.resetStream(st, ErrCodeProtocol)
	default:
		r := hb.req
		if r.Authority != "" {
			r.Host = r.Authority
		}
		if hb.endStream {
			if r.ContentLength > 0 {
				c.resetStream(st, ErrCodeProtocol)
				return
			}
			r.ContentLength = 0
		}
		st.declared = r.ContentLength
		r.Header = joinCookies(r.Header)
		c.deliverRequest(st, r, hb.endStream)
	}
}

// joinCookies joins the "cookie" fields of h into the first one, with
// "; " between them (RFC 9113 section 8.2.3: a client may split a Cookie
// into crumbs, and HTTP/1.1 code expects one field). h is changed in place.
func joinCookies(h []http1.HeaderField) []http1.HeaderField {
	first, n := -1, 0
	for i := range h {
		if h[i].Name == "cookie" {
			if first < 0 {
				first = i
			}
			n++
		}
	}
	if n < 2 {
		return h
	}
	var b strings.Builder
	out := h[:first+1]
	for _, f := range h[first:] {
		if f.Name != "cookie" {
			out = append(out, f)
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(f.Value)
	}
	out[first].Value = b.String()
	return out
}

// validRequest checks the pseudo-header fields (RFC 9113 section 8.3.1).
func validRequest(r *Request) bool {
	if r.Method == "" {
		return false
	}
	if r.Protocol != "" { // extended CONNECT (RFC 8441 section 4)
		return r.Method == "CONNECT" && r.Authority != "" && r.Scheme != "" && r.Path != "" && r.Path[0] == '/'
	}
	if r.Method == "CONNECT" {
		return r.Authority != "" && r.Scheme == "" && r.Path == ""
	}
	if r.Scheme == "" || r.Path == "" {
		return false
	}
	if r.Path[0] == '/' {
		return true
	}
	return r.Path == "*" && r.Method == "OPTIONS"
}

// validFieldName: a non-empty token in lowercase (RFC 9113 section 8.2.1).
func validFieldName(s string) bool {
	if !http1.ValidHeaderName(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return false
		}
	}
	return true
}

// validFieldValue: no CR, LF, NUL or other control byte but HTAB, and no
// leading or trailing whitespace (RFC 9113 section 8.2.1).
func validFieldValue(s string) bool {
	if s == "" {
		return true
	}
	if isWS(s[0]) || isWS(s[len(s)-1]) {
		return false
	}
	return http1.ValidHeaderValue(s)
}

func isWS(b byte) bool { return b == ' ' || b == '\t' }
