package http1

import "bytes"

// setTarget checks the request-target and sets Path and RawQuery. For an
// absolute-form target it returns the authority, which becomes the Host.
func (r *Request) setTarget(t []byte) (authority []byte, e *Error) {
	if !validTargetBytes(t) {
		return nil, &errTarget
	}
	switch {
	case t[0] == '/':
		r.splitPathQuery(t)
		return nil, nil
	case len(t) == 1 && t[0] == '*':
		if r.Method != "OPTIONS" {
			return nil, &errAsterisk
		}
		r.Path = "*"
		return nil, nil
	}
	// absolute-form: http[s]://authority[/path][?query]
	colon := bytes.IndexByte(t, ':')
	if colon < 0 || !(equalFoldBytes(t[:colon], "http") || equalFoldBytes(t[:colon], "https")) {
		return nil, &errTarget
	}
	rest := t[colon+1:]
	if len(rest) < 2 || rest[0] != '/' || rest[1] != '/' {
		return nil, &errTarget
	}
	rest = rest[2:]
	end := len(rest)
	for i, c := range rest {
		if c == '/' || c == '?' {
			end = i
			break
		}
	}
	authority = rest[:end]
	if !validHost(authority, false) {
		return nil, &errTarget
	}
	rest = rest[end:]
	if len(rest) == 0 || rest[0] == '?' {
		r.Path = "/"
		if len(rest) > 0 {
			r.RawQuery = bstr(rest[1:])
		}
		return authority, nil
	}
	r.splitPathQuery(rest)
	return authority, nil
}

// splitPathQuery sets Path and RawQuery from an origin-form target.
func (r *Request) splitPathQuery(t []byte) {
	if q := bytes.IndexByte(t, '?'); q >= 0 {
		r.Path = bstr(t[:q])
		r.RawQuery = bstr(t[q+1:])
		return
	}
	r.Path = bstr(t)
}

// validHost reports whether b is uri-host [":" port] (RFC 3986): a reg-name
// or IPv4 address, or an IP literal in brackets, then optional port digits.
// No userinfo. An empty b is valid only when allowEmpty (an empty Host
// header is allowed; an empty URI authority is not).
func validHost(b []byte, allowEmpty bool) bool {
	if len(b) == 0 {
		return allowEmpty
	}
	var rest []byte
	if b[0] == '[' {
		end := bytes.IndexByte(b, ']')
		if end < 2 {
			return false
		}
		for _, c := range b[1:end] {
			if !isRegNameByte[c] && c != ':' {
				return false
			}
		}
		rest = b[end+1:]
	} else {
		i := 0
		for i < len(b) && isRegNameByte[b[i]] {
			i++
		}
		if i == 0 {
			return false
		}
		rest = b[i:]
	}
	if len(rest) == 0 {
		return true
	}
	if rest[0] != ':' {
		return false
	}
	for _, c := range rest[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
