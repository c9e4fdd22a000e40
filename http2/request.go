package http2

import (
	"strings"

	"github.com/gwist/gwist/http1"
)

// Request is a stream's request head, validated as RFC 9113 section 8
// says. Its strings are the application's (fresh from the HPACK decoder or
// static): they stay valid for as long as it keeps them.
type Request struct {
	// Method, Scheme, Authority and Path are the pseudo-header fields
	// (":path" as sent, query included). A CONNECT request has only
	// Method and Authority.
	Method, Scheme, Authority, Path string
	// Protocol is an extended CONNECT's :protocol (RFC 8441; only with
	// Config.EnableConnectProtocol), "" otherwise. Such a request has a
	// Scheme and a Path too.
	Protocol string
	// Header holds the regular fields in arrival order, names in lowercase.
	// Several "cookie" fields (crumbs) are joined into one, their values
	// separated by "; " (RFC 9113 section 8.2.3), where the first was.
	Header []http1.HeaderField
	// Host is Authority, or the "host" field's value when there is no
	// Authority.
	Host string
	// ContentLength is the declared content-length, 0 when the HEADERS
	// frame ended the stream, -1 when a body of unknown length may follow.
	// The connection checks that the DATA received matches a declared
	// length (a stream error otherwise).
	ContentLength int64
}

// FillHTTP1 sets dst's exported fields from r so that code written for an
// HTTP/1.1 request serves it: Method; Target (":path", or the authority for
// a CONNECT that is not an extended CONNECT) split into Path and RawQuery; ProtoMajor 2 and ProtoMinor 0;
// Host; Headers (r.Header itself, not a copy); ContentLength (-1 for a
// body of unknown length, with Chunked false); KeepAlive true. Body,
// Trailers and Expect100 are left alone: the body arrives as EventData.
func (r *Request) FillHTTP1(dst *http1.Request) {
	dst.Method = r.Method
	if r.Method == "CONNECT" && r.Protocol == "" {
		dst.Target, dst.Path, dst.RawQuery = r.Authority, r.Authority, ""
	} else { // an extended CONNECT is routed by its :path
		dst.Target = r.Path
		if i := strings.IndexByte(r.Path, '?'); i >= 0 {
			dst.Path, dst.RawQuery = r.Path[:i], r.Path[i+1:]
		} else {
			dst.Path, dst.RawQuery = r.Path, ""
		}
	}
	dst.ProtoMajor, dst.ProtoMinor = 2, 0
	dst.Host = r.Host
	dst.Headers = r.Header
	dst.ContentLength = r.ContentLength
	dst.Chunked = false
	dst.KeepAlive = true
}

// Get returns the value of the first field named name (lowercase), or "".
func (r *Request) Get(name string) string {
	for i := range r.Header {
		if r.Header[i].Name == name {
			return r.Header[i].Value
		}
	}
	return ""
}
