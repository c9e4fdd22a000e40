package http1

// HeaderField is one header (or trailer) line: its name as sent and its value
// with leading and trailing whitespace removed.
type HeaderField struct {
	Name, Value string
}

// maxRetainedBody is the body capacity a Request keeps across Reset; larger
// buffers are dropped so that one big upload does not pin memory in a pool.
const maxRetainedBody = 1 << 20

// Request is one parsed request.
//
// All strings and slices point into memory owned by the Request (the parser
// copies the head and the body out of the caller's buffer). They are valid
// until [Request.Reset] or until the Request is parsed into again; copy what
// must live longer. The caller pools and reuses Requests: a reused Request
// keeps its buffers, so parsing into it allocates nothing.
type Request struct {
	// Method is the request method, e.g. "GET".
	Method string
	// Target is the request-target exactly as sent.
	Target string
	// Path is, for origin-form, Target before '?'; for absolute-form the
	// URI's path ("/" if empty); "*" for asterisk-form.
	Path string
	// RawQuery is what follows the first '?', without it; "" if none.
	RawQuery string
	// ProtoMajor and ProtoMinor are the request's HTTP version: 1 and 0
	// or 1 from this package's parser; 2 and 0 for a request that came
	// over HTTP/2 (h2, h2c, or the request of an h2c upgrade), which
	// http2.Request.FillHTTP1 puts in this same type.
	ProtoMajor int
	ProtoMinor int
	// Host is the Host header value; for an absolute-form target the URI's
	// authority (RFC 9112 section 3.2.2).
	Host string
	// Headers holds the header fields in arrival order, names as sent,
	// values with surrounding whitespace trimmed.
	Headers []HeaderField
	// ContentLength is the declared Content-Length; -1 for a chunked body;
	// 0 when there is no body.
	ContentLength int64
	// Chunked reports a chunked body.
	Chunked bool
	// KeepAlive reports whether the connection may be reused after this
	// request: on HTTP/1.1 unless "Connection: close"; on HTTP/1.0 only with
	// "Connection: keep-alive".
	KeepAlive bool
	// Expect100 reports "Expect: 100-continue" on an HTTP/1.1 request that
	// has a body: the server should send "100 Continue" before reading it.
	Expect100 bool
	// Body is the decoded body, complete once Parse returned
	// MessageComplete; nil when the request has none.
	Body []byte
	// Trailers holds the trailer fields of a chunked body. They are not
	// merged into Headers.
	Trailers []HeaderField

	head    []byte        // copy of the head; the strings above point here
	fields  []HeaderField // backing for Headers
	body    []byte        // backing for Body
	trail   []byte        // raw trailer section
	tfields []HeaderField // backing for Trailers
}

// Header returns the value of the first header field named name (compared
// case-insensitively), or "" if there is none. It allocates nothing.
func (r *Request) Header(name string) string {
	for i := range r.Headers {
		if equalFold(r.Headers[i].Name, name) {
			return r.Headers[i].Value
		}
	}
	return ""
}

// Reset clears the Request for reuse, keeping its buffers (except a body
// buffer above 1 MiB). Strings and slices obtained from it become invalid.
func (r *Request) Reset() {
	body := r.body[:0]
	if cap(body) > maxRetainedBody {
		body = nil
	}
	*r = Request{
		head:    r.head[:0],
		fields:  r.fields[:0],
		body:    body,
		trail:   r.trail[:0],
		tfields: r.tfields[:0],
	}
}
