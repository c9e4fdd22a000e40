package router

import (
	"fmt"
	"slices"
	"strings"
)

// pieceKind tells what a piece of a parsed pattern matches.
type pieceKind uint8

const (
	pieceStatic   pieceKind = iota // literal text
	pieceParam                     // ":name", one segment
	pieceCatchAll                  // "*name", the rest of the path
)

// piece is one part of a parsed pattern: literal text or a wildcard's name.
type piece struct {
	kind pieceKind
	text string
}

// parsePattern splits pattern into static text and wildcards, or reports why
// it is invalid. A wildcard starts only right after a '/', so every static
// piece before a wildcard ends with '/' and every one after a param starts
// with '/'. The net/http ServeMux forms "{name}", "{name...}" and a final
// "{$}" are read as ":name", "*name" and nothing (our static paths already
// match exactly); any other '{' or '}' is an error that names the syntax to
// use, so a ServeMux pattern never registers as a literal that cannot match.
func parsePattern(pattern string) ([]piece, error) {
	if pattern == "" || pattern[0] != '/' {
		return nil, fmt.Errorf("must start with '/'")
	}
	var pieces []piece
	var names []string
	start := 0 // start of the pending static text
	for i := 1; i < len(pattern); {
		c := pattern[i]
		if c == '}' || (c == '{' && pattern[i-1] != '/') {
			return nil, braceError(pattern, i)
		}
		if (c != ':' && c != '*' && c != '{') || pattern[i-1] != '/' {
			i++
			continue
		}
		end := strings.IndexByte(pattern[i:], '/')
		if end < 0 {
			end = len(pattern)
		} else {
			end += i
		}
		kind := pieceParam
		name := pattern[i+1 : end]
		switch c {
		case '*':
			kind = pieceCatchAll
		case '{':
			var err error
			if kind, name, err = braceWildcard(pattern, i, end); err != nil {
				return nil, err
			}
			if kind == pieceStatic { // "{$}": the path ends here
				pieces = append(pieces, piece{pieceStatic, pattern[start:i]})
				return pieces, nil
			}
		}
		switch {
		case name == "":
			return nil, fmt.Errorf("empty wildcard name at byte %d", i)
		case strings.ContainsAny(name, ":*"):
			return nil, fmt.Errorf("wildcard name %q contains ':' or '*' (one wildcard per segment)", name)
		case strings.ContainsAny(name, "{}"):
			return nil, braceError(pattern, i)
		case slices.Contains(names, name):
			return nil, fmt.Errorf("duplicate parameter name %q", name)
		case kind == pieceCatchAll && end != len(pattern):
			return nil, fmt.Errorf("catch-all *%s must end the pattern", name)
		}
		names = append(names, name)
		pieces = append(pieces, piece{pieceStatic, pattern[start:i]})
		pieces = append(pieces, piece{kind, name})
		i, start = end, end
	}
	if start < len(pattern) {
		pieces = append(pieces, piece{pieceStatic, pattern[start:]})
	}
	return pieces, nil
}

// braceWildcard reads the ServeMux wildcard that fills the segment
// pattern[i:end] (pattern[i] is '{'): "{name}" is a parameter, "{name...}"
// a catch-all, and "{$}" (only at the very end, after a '/') is returned
// as a static piece, meaning "nothing more".
func braceWildcard(pattern string, i, end int) (pieceKind, string, error) {
	seg := pattern[i:end]
	if len(seg) < 3 || seg[len(seg)-1] != '}' {
		return 0, "", braceError(pattern, i)
	}
	inner := seg[1 : len(seg)-1]
	switch {
	case inner == "$":
		if end != len(pattern) {
			return 0, "", fmt.Errorf("{$} must end the pattern")
		}
		return pieceStatic, "", nil
	case strings.HasSuffix(inner, "..."):
		return pieceCatchAll, inner[:len(inner)-3], nil
	}
	return pieceParam, inner, nil
}

// braceError explains a '{' or '}' that is not a whole-segment ServeMux
// wildcard.
func braceError(pattern string, i int) error {
	return fmt.Errorf("'%c' at byte %d: braces must form a whole segment, "+
		"\"/{name}\" (same as \"/:name\") or a final \"/{name...}\" (same as \"/*name\")", pattern[i], i)
}

// validMethod reports whether m is a non-empty HTTP token (RFC 9110, 5.6.2).
func validMethod(m string) bool {
	if m == "" {
		return false
	}
	for i := 0; i < len(m); i++ {
		if !isTchar(m[i]) {
			return false
		}
	}
	return true
}

// isTchar reports whether c may appear in an HTTP token.
func isTchar(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}
