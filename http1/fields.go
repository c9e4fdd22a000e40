package http1

import "bytes"

// headInfo collects what the header fields say about the message.
type headInfo struct {
	hosts          int
	host           []byte
	cl             int64 // -1: no Content-Length
	te             bool  // a Transfer-Encoding field was seen
	chunked        bool  // chunked was its final coding
	teErr          *Error
	closeTok       bool // Connection: close
	keepAliveTok   bool // Connection: keep-alive
	expectContinue bool
	expectOther    bool
}

// note records one header field. Errors it returns are syntax errors of the
// field (400); semantic ones are kept for after the whole head is read.
func (hi *headInfo) note(name, value []byte) *Error {
	switch len(name) {
	case 4:
		if equalFoldBytes(name, "host") {
			hi.hosts++
			if hi.hosts > 1 {
				return &errMultiHost
			}
			if !validHost(value, true) {
				return &errHost
			}
			hi.host = value
		}
	case 6:
		if equalFoldBytes(name, "expect") {
			if equalFoldBytes(value, "100-continue") {
				hi.expectContinue = true
			} else {
				hi.expectOther = true
			}
		}
	case 10:
		if equalFoldBytes(name, "connection") {
			hi.noteConnection(value)
		}
	case 14:
		if equalFoldBytes(name, "content-length") {
			n, e := parseContentLength(value)
			if e != nil {
				return e
			}
			if hi.cl >= 0 && hi.cl != n {
				return &errCLMismatch
			}
			hi.cl = n
		}
	case 17:
		if equalFoldBytes(name, "transfer-encoding") {
			hi.noteTE(value)
		}
	}
	return nil
}

// noteConnection looks for the close and keep-alive options.
func (hi *headInfo) noteConnection(v []byte) {
	for len(v) > 0 {
		tok := v
		if c := bytes.IndexByte(v, ','); c >= 0 {
			tok, v = v[:c], v[c+1:]
		} else {
			v = nil
		}
		tok = trimOWS(tok)
		switch {
		case equalFoldBytes(tok, "close"):
			hi.closeTok = true
		case equalFoldBytes(tok, "keep-alive"):
			hi.keepAliveTok = true
		}
	}
}

// noteTE checks a Transfer-Encoding list (which may continue an earlier
// field): chunked must be the one and final coding. The first problem is
// kept in teErr.
func (hi *headInfo) noteTE(v []byte) {
	hi.te = true
	for len(v) > 0 {
		tok := v
		if c := bytes.IndexByte(v, ','); c >= 0 {
			tok, v = v[:c], v[c+1:]
		} else {
			v = nil
		}
		tok = trimOWS(tok)
		if len(tok) == 0 {
			continue // empty list elements are ignored (RFC 9110 5.6.1)
		}
		isChunked := equalFoldBytes(tok, "chunked")
		var e *Error
		switch {
		case hi.chunked && isChunked:
			e = &errTETwice
		case hi.chunked:
			e = &errTENotLast
		case !isChunked:
			e = &errTEUnknown
		}
		if e != nil && hi.teErr == nil {
			hi.teErr = e
		}
		if isChunked {
			hi.chunked = true
		}
	}
}

// parseContentLength parses a Content-Length value: a decimal, or a list of
// identical decimals ("5, 5").
func parseContentLength(v []byte) (int64, *Error) {
	n := int64(-1)
	for {
		elem := v
		c := bytes.IndexByte(v, ',')
		if c >= 0 {
			elem = v[:c]
		}
		x, ok := parseDecimal(trimOWS(elem))
		if !ok {
			return 0, &errCL
		}
		if n >= 0 && x != n {
			return 0, &errCLMismatch
		}
		n = x
		if c < 0 {
			return n, nil
		}
		v = v[c+1:]
	}
}

// parseDecimal parses a non-empty string of ASCII digits into an int64.
func parseDecimal(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := int64(c - '0')
		if n > (1<<63-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}
