package http1

import "errors"

// ErrInvalidHeader is returned when a header field set by a handler has a
// name that is not a token or a value with bytes that would break the
// framing (CR, LF, NUL, other CTLs): header injection.
var ErrInvalidHeader = errors.New("http1: invalid header field name or value")

// ValidHeaderName reports whether name is an RFC 9110 token (a valid field
// name).
func ValidHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isTchar[name[i]] {
			return false
		}
	}
	return true
}

// ValidHeaderValue reports whether value is a valid field value: no CR, LF,
// NUL or other control byte except HTAB, and no DEL (obs-text is allowed).
func ValidHeaderValue(value string) bool {
	for i := 0; i < len(value); i++ {
		if !isFieldByte[value[i]] {
			return false
		}
	}
	return true
}

// Header is an ordered, reusable list of response header fields. Names are
// compared case-insensitively and written as given. The zero value is an
// empty Header.
type Header struct {
	fields []HeaderField
}

// Set replaces every field named name with one field name: value, at the
// place of the first one (or at the end). It returns ErrInvalidHeader, and
// changes nothing, when name or value is invalid.
func (h *Header) Set(name, value string) error {
	if !ValidHeaderName(name) || !ValidHeaderValue(value) {
		return ErrInvalidHeader
	}
	out := h.fields[:0]
	done := false
	for _, f := range h.fields {
		if equalFold(f.Name, name) {
			if done {
				continue
			}
			f, done = HeaderField{Name: name, Value: value}, true
		}
		out = append(out, f)
	}
	if !done {
		out = append(out, HeaderField{Name: name, Value: value})
	}
	if len(out) < len(h.fields) {
		clear(h.fields[len(out):])
	}
	h.fields = out
	return nil
}

// Add appends the field name: value, keeping existing fields of that name.
// It returns ErrInvalidHeader, and changes nothing, when name or value is
// invalid.
func (h *Header) Add(name, value string) error {
	if !ValidHeaderName(name) || !ValidHeaderValue(value) {
		return ErrInvalidHeader
	}
	h.fields = append(h.fields, HeaderField{Name: name, Value: value})
	return nil
}

// Get returns the value of the first field named name, or "".
func (h *Header) Get(name string) string {
	for i := range h.fields {
		if equalFold(h.fields[i].Name, name) {
			return h.fields[i].Value
		}
	}
	return ""
}

// Del removes every field named name.
func (h *Header) Del(name string) {
	out := h.fields[:0]
	for _, f := range h.fields {
		if !equalFold(f.Name, name) {
			out = append(out, f)
		}
	}
	clear(h.fields[len(out):])
	h.fields = out
}

// Fields returns the fields in order. The slice is the Header's own: do not
// modify it, and do not keep it past the next change.
func (h *Header) Fields() []HeaderField { return h.fields }

// Reset removes every field, keeping the capacity.
func (h *Header) Reset() {
	clear(h.fields)
	h.fields = h.fields[:0]
}
