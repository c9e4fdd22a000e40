package http1

// Clone returns a copy of r whose strings and slices are its own: they stay
// valid after r is Reset or parsed into again. The copy's strings share one
// new buffer (one allocation for them all, plus one each for the header and
// trailer lists and the body).
func (r *Request) Clone() *Request {
	n := len(r.Target) + len(r.Path) + len(r.RawQuery) + len(r.Host)
	if !IsInternedMethod(r.Method) {
		n += len(r.Method)
	}
	for _, f := range r.Headers {
		n += len(f.Name) + len(f.Value)
	}
	for _, f := range r.Trailers {
		n += len(f.Name) + len(f.Value)
	}
	cl := stringCopier{buf: make([]byte, 0, n)}
	c := &Request{
		Method:        r.Method,
		Target:        cl.copy(r.Target),
		Path:          cl.copy(r.Path),
		RawQuery:      cl.copy(r.RawQuery),
		ProtoMajor:    r.ProtoMajor,
		ProtoMinor:    r.ProtoMinor,
		Host:          cl.copy(r.Host),
		ContentLength: r.ContentLength,
		Chunked:       r.Chunked,
		KeepAlive:     r.KeepAlive,
		Expect100:     r.Expect100,
	}
	if !IsInternedMethod(r.Method) {
		c.Method = cl.copy(r.Method)
	}
	c.Headers = cl.fields(r.Headers)
	c.Trailers = cl.fields(r.Trailers)
	if r.Body != nil {
		c.Body = append([]byte(nil), r.Body...)
	}
	return c
}

// TakeBody returns r.Body and gives its memory to the caller: the slice
// stays valid and unchanged after r is Reset or parsed into again (r.Body
// still reads it until then). The next body parsed into r gets a new
// buffer, so taking costs that allocation instead of a copy.
func (r *Request) TakeBody() []byte {
	b := r.Body
	if len(b) > 0 {
		r.body = nil
	}
	return b
}

// IsInternedMethod reports whether the parser gives method m as a constant
// string (the registered methods: GET, HEAD, POST, PUT, DELETE, PATCH,
// OPTIONS, CONNECT, TRACE) rather than as a string into the request's
// buffer, so that it stays valid after Reset without a copy.
func IsInternedMethod(m string) bool {
	switch m {
	case "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE":
		return true
	}
	return false
}

// stringCopier copies strings into one buffer sized in advance.
type stringCopier struct{ buf []byte }

func (s *stringCopier) copy(v string) string {
	if v == "" {
		return ""
	}
	start := len(s.buf)
	s.buf = append(s.buf, v...)
	return bstr(s.buf[start:len(s.buf):len(s.buf)])
}

func (s *stringCopier) fields(fs []HeaderField) []HeaderField {
	if fs == nil {
		return nil
	}
	out := make([]HeaderField, len(fs))
	for i, f := range fs {
		out[i] = HeaderField{Name: s.copy(f.Name), Value: s.copy(f.Value)}
	}
	return out
}
