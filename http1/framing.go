package http1

// BodyFraming is how a response's body is delimited on the wire.
type BodyFraming uint8

const (
	// FramingNone: the response has no body (1xx, 204, 304, or the answer
	// to HEAD); whatever the handler writes is dropped.
	FramingNone BodyFraming = iota
	// FramingLength: exactly ContentLength bytes follow the head.
	FramingLength
	// FramingChunked: the body is a sequence of chunks ([AppendChunk]) ended
	// by [AppendLastChunk], which may carry trailer fields.
	FramingChunked
	// FramingClose: the body runs until the server closes the connection
	// (an HTTP/1.0 client and no length known up front).
	FramingClose
)

// Framing reports how [AppendHead] delimits the body that follows h, so a
// caller streaming the body knows how to write it. It is the decision
// AppendHead itself makes.
func (h *ResponseHead) Framing() BodyFraming {
	status := h.Status
	if status < 100 || status > 999 {
		status = 500
	}
	switch {
	case status < 200 || status == 204 || status == 304 || h.HeadRequest:
		return FramingNone
	case h.ContentLength >= 0:
		return FramingLength
	case h.ProtoMinor >= 1:
		return FramingChunked
	}
	return FramingClose
}

// AppendChunkHeader appends the size line of an n-byte chunk ("hex CRLF");
// the caller appends the n bytes and a CRLF. n must be > 0: a zero-size
// chunk ends the body.
func AppendChunkHeader(dst []byte, n int) []byte {
	const hex = "0123456789abcdef"
	var buf [16]byte
	i := len(buf)
	for u := uint64(n); ; u >>= 4 {
		i--
		buf[i] = hex[u&0xf]
		if u < 16 {
			break
		}
	}
	dst = append(dst, buf[i:]...)
	return append(dst, "\r\n"...)
}

// ParseContentLength parses a Content-Length value set by a handler: ASCII
// digits only, at most 18 of them (no sign, no spaces, no list). It reports
// false for anything else.
func ParseContentLength(v string) (int64, bool) {
	if v == "" || len(v) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(v); i++ {
		d := v[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int64(d-'0')
	}
	return n, true
}
