package http1

// LooksLikeRequestLine reports whether line (a first line, without its
// line ending) starts the way an HTTP/1 request line does: a method token,
// one space, and a request target in origin form ("/..."), asterisk form
// ("*") or absolute form ("scheme://..."), whatever follows. A server that
// speaks HTTP/2 by prior knowledge on the same port uses it to tell a
// malformed HTTP/1 request, which deserves a 400, from bytes that are
// neither protocol, which get the connection closed.
func LooksLikeRequestLine(line []byte) bool {
	sp := 0
	for sp < len(line) && isTchar[line[sp]] {
		sp++
	}
	if sp == 0 || sp+1 >= len(line) || line[sp] != ' ' {
		return false
	}
	target := line[sp+1:]
	switch target[0] {
	case '/', '*':
		return true
	}
	for i, c := range target {
		switch {
		case c == ':':
			return i > 0 && len(target) > i+2 && target[i+1] == '/' && target[i+2] == '/'
		case !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')):
			return false
		}
	}
	return false
}
