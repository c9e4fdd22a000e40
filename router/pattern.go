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
// with '/'.
func parsePattern(pattern string) ([]piece, error) {
	if pattern == "" || pattern[0] != '/' {
		return nil, fmt.Errorf("must start with '/'")
	}
	var pieces []piece
	var names []string
	start := 0 // start of the pending static text
	for i := 1; i < len(pattern); {
		c := pattern[i]
		if (c != ':' && c != '*') || pattern[i-1] != '/' {
			i++
			continue
		}
		end := strings.IndexByte(pattern[i:], '/')
		if end < 0 {
			end = len(pattern)
		} else {
			end += i
		}
		name := pattern[i+1 : end]
		switch {
		case name == "":
			return nil, fmt.Errorf("empty wildcard name at byte %d", i)
		case strings.ContainsAny(name, ":*"):
			return nil, fmt.Errorf("wildcard name %q contains ':' or '*' (one wildcard per segment)", name)
		case slices.Contains(names, name):
			return nil, fmt.Errorf("duplicate parameter name %q", name)
		case c == '*' && end != len(pattern):
			return nil, fmt.Errorf("catch-all *%s must end the pattern", name)
		}
		names = append(names, name)
		pieces = append(pieces, piece{pieceStatic, pattern[start:i]})
		kind := pieceParam
		if c == '*' {
			kind = pieceCatchAll
		}
		pieces = append(pieces, piece{kind, name})
		i, start = end, end
	}
	if start < len(pattern) {
		pieces = append(pieces, piece{pieceStatic, pattern[start:]})
	}
	return pieces, nil
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
