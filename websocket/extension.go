package websocket

import "strings"

// extension is one element of a Sec-WebSocket-Extensions list (RFC 6455
// section 9.1): a name and its parameters in order.
type extension struct {
	name   string
	params []extParam
	ok     bool // false: the element does not follow the grammar
}

type extParam struct {
	name, value string
	hasValue    bool
}

// parseExtensions splits Sec-WebSocket-Extensions values into their
// elements, in order. Commas and semicolons inside quoted strings do not
// split; an element that breaks the grammar (a name or value that is not
// a token, an unterminated quoted string) is returned with ok false so
// the caller can skip it and still weigh the others.
func parseExtensions(values []string) []extension {
	var out []extension
	for _, v := range values {
		for _, elem := range splitQuoted(v, ',') {
			if strings.TrimSpace(elem) == "" {
				continue
			}
			out = append(out, parseExtension(elem))
		}
	}
	return out
}

func parseExtension(elem string) extension {
	parts := splitQuoted(elem, ';')
	e := extension{name: strings.TrimSpace(parts[0]), ok: true}
	if !isToken(e.name) {
		e.ok = false
	}
	for _, p := range parts[1:] {
		name, value, hasValue := strings.Cut(p, "=")
		prm := extParam{name: strings.TrimSpace(name), hasValue: hasValue}
		if !isToken(prm.name) {
			e.ok = false
		}
		if hasValue {
			v, ok := unquote(strings.TrimSpace(value))
			if !ok || !isToken(v) { // RFC 6455 9.1: a quoted value must be a token once unquoted
				e.ok = false
			}
			prm.value = v
		}
		e.params = append(e.params, prm)
	}
	return e
}

// splitQuoted splits s at sep outside double-quoted strings. An
// unterminated quoted string runs to the end of s.
func splitQuoted(s string, sep byte) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == sep:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// unquote returns s without its quotes and escapes if it is a quoted
// string, or s itself.
func unquote(s string) (string, bool) {
	if len(s) == 0 || s[0] != '"' {
		return s, true
	}
	if len(s) < 2 || s[len(s)-1] != '"' {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(s)-1; i++ {
		c := s[i]
		if c == '\\' {
			i++
			if i == len(s)-1 {
				return "", false
			}
			c = s[i]
		} else if c == '"' {
			return "", false
		}
		b.WriteByte(c)
	}
	return b.String(), true
}

// isToken reports whether s is an RFC 9110 token.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7F || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}
