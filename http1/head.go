package http1

import "bytes"

// completeHead copies the complete head h into r and parses it there, then
// arms the parser for the body, if any.
func (p *Parser) completeHead(r *Request, h []byte) (Event, *Error) {
	// Every field is assigned by parseHead; only the body side needs
	// clearing here (the caller normally passes a Reset Request anyway).
	r.Path, r.RawQuery, r.Headers = "", "", nil
	r.Body, r.Trailers = nil, nil
	r.body, r.trail, r.tfields = r.body[:0], r.trail[:0], r.tfields[:0]
	r.head = append(growBytes(r.head[:0], len(h), p.Limits.maxHeader()), h...)
	if e := p.parseHead(r, r.head); e != nil {
		return NeedMore, e
	}
	p.resetScan()
	switch {
	case r.Chunked:
		p.state = stChunked
		p.cs = csSize
		p.bodyMax = p.Limits.MaxBody()
		return HeadComplete, nil
	case r.ContentLength > 0:
		p.state = stFixed
		p.remaining = r.ContentLength
		p.bodyMax = p.Limits.MaxBody()
		p.lenOver = r.ContentLength > p.bodyMax // only with DeferBodyLimit
		return HeadComplete, nil
	}
	p.endMessage()
	return MessageComplete, nil
}

// preallocBody is how much of a declared Content-Length is allocated when
// the body starts to arrive; beyond it the buffer grows with what is
// received.
const preallocBody = 64 << 10

// parseHead is stage 2: it parses the complete head h (owned by r) using the
// line ends and request-line spaces found by the framing scan.
func (p *Parser) parseHead(r *Request, h []byte) *Error {
	le := p.lineEnds
	rlEnd := int(le[0]) - 1 // CR of the request line
	sp1, sp2 := p.sp1, p.sp2
	switch {
	case sp1 == 0:
		return &errEmptyMethod
	case sp2 < 0:
		return &errRequestLine
	case sp2 == sp1+1:
		return &errEmptyTarget
	}
	minor, e := parseVersion(h[sp2+1 : rlEnd])
	if e != nil {
		return e
	}
	r.Method = internMethod(h[:sp1])
	if r.Method == "CONNECT" {
		return &errConnect
	}
	target := h[sp1+1 : sp2]
	r.Target = bstr(target)
	authority, e := r.setTarget(target)
	if e != nil {
		return e
	}

	hi := headInfo{cl: -1}
	fields := r.fields[:0]
	start := rlEnd + 2
	for k := 1; k < len(le)-1; k++ {
		end := int(le[k]) - 1
		line := h[start:end]
		start = end + 2
		ne, vs, ve, e := parseFieldLine(line)
		if e != nil {
			return e
		}
		name, value := line[:ne], line[vs:ve]
		fields = append(fields, HeaderField{Name: bstr(name), Value: bstr(value)})
		if e := hi.note(name, value); e != nil {
			return e
		}
	}
	r.fields = fields
	if len(fields) > 0 {
		r.Headers = fields
	}

	if minor == 1 && hi.hosts == 0 {
		return &errNoHost
	}
	if hi.te {
		switch {
		case minor == 0:
			return &errTE10
		case hi.cl >= 0:
			return &errCLAndTE
		case hi.teErr != nil:
			return hi.teErr
		case !hi.chunked:
			return &errTEEmpty
		}
	}
	if hi.cl > p.Limits.MaxBody() && !p.DeferBodyLimit {
		return &errBodyTooLarge
	}
	if hi.expectOther {
		return &errExpect
	}

	r.ProtoMajor, r.ProtoMinor = 1, minor
	r.Host = bstr(hi.host)
	if authority != nil {
		r.Host = bstr(authority)
	}
	r.Chunked, r.ContentLength = false, 0
	switch {
	case hi.chunked:
		r.Chunked, r.ContentLength = true, -1
	case hi.cl > 0:
		r.ContentLength = hi.cl
	}
	if minor == 1 {
		r.KeepAlive = !hi.closeTok
	} else {
		r.KeepAlive = hi.keepAliveTok && !hi.closeTok
	}
	r.Expect100 = hi.expectContinue && minor == 1 && r.ContentLength != 0
	return nil
}

// parseVersion parses "HTTP/d.d" and returns the minor version to use.
func parseVersion(v []byte) (int, *Error) {
	if len(v) != 8 || string(v[:5]) != "HTTP/" || v[6] != '.' ||
		v[5] < '0' || v[5] > '9' || v[7] < '0' || v[7] > '9' {
		return 0, &errVersion
	}
	if v[5] != '1' {
		return 0, &errVersionSupport
	}
	if v[7] == '0' {
		return 0, nil
	}
	return 1, nil // 1.1, and 1.2 to 1.9 processed as 1.1 (RFC 9110 2.5)
}

// internMethod returns a constant string for the common methods (so they
// survive Reset and cost nothing), else a string into the head.
func internMethod(b []byte) string {
	switch string(b) {
	case "GET":
		return "GET"
	case "HEAD":
		return "HEAD"
	case "POST":
		return "POST"
	case "PUT":
		return "PUT"
	case "DELETE":
		return "DELETE"
	case "PATCH":
		return "PATCH"
	case "OPTIONS":
		return "OPTIONS"
	case "CONNECT":
		return "CONNECT"
	case "TRACE":
		return "TRACE"
	}
	return bstr(b)
}

// parseFieldLine splits a field line (without its CRLF) into name and value
// (OWS trimmed), returned as offsets, and checks both.
func parseFieldLine(line []byte) (nameEnd, valStart, valEnd int, e *Error) {
	if len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
		return 0, 0, 0, &errObsFold
	}
	// The name is short: scan it for tchar up to the colon in one pass.
	colon := 0
	for colon < len(line) && isTchar[line[colon]] {
		colon++
	}
	if colon == len(line) || line[colon] != ':' {
		c := bytes.IndexByte(line, ':')
		switch {
		case c < 0:
			return 0, 0, 0, &errNoColon
		case c == 0:
			return 0, 0, 0, &errEmptyName
		case validToken(trimOWS(line[:c])):
			return 0, 0, 0, &errSpaceColon
		}
		return 0, 0, 0, &errFieldName
	}
	if colon == 0 {
		return 0, 0, 0, &errEmptyName
	}
	vs, ve := colon+1, len(line)
	for vs < ve && (line[vs] == ' ' || line[vs] == '\t') {
		vs++
	}
	for ve > vs && (line[ve-1] == ' ' || line[ve-1] == '\t') {
		ve--
	}
	if !validValueBytes(line[vs:ve]) {
		return 0, 0, 0, &errFieldValue
	}
	return colon, vs, ve, nil
}
