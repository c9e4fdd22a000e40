package conditional

import (
	"net/http"
	"strings"
	"time"
)

// Request holds the request fields the decision depends on.
type Request struct {
	Method            string
	IfMatch           string
	IfNoneMatch       string
	IfModifiedSince   string
	IfUnmodifiedSince string
	IfRange           string
	Range             string
}

// Outcome is what Evaluate decides.
type Outcome uint8

const (
	// Proceed: send the content (whole or ranges, per Evaluate's second
	// result).
	Proceed Outcome = iota
	// NotModified: answer 304 with the validators and no body.
	NotModified
	// PreconditionFailed: answer 412.
	PreconditionFailed
)

// Evaluate applies the preconditions of RFC 9110 section 13.2.2, in its
// order, to a resource with the given ETag (a quoted entity tag, or "" when
// the resource has none) and modification time (zero when unknown). It
// also says whether a Range header should be honoured: only when present
// and when If-Range, if sent, matches (a strong ETag match, or exactly the
// modification time).
func Evaluate(r *Request, etag string, modtime time.Time) (Outcome, bool) {
	getOrHead := r.Method == http.MethodGet || r.Method == http.MethodHead
	if r.IfMatch != "" {
		if !anyMatch(r.IfMatch, etag, true) {
			return PreconditionFailed, false
		}
	} else if r.IfUnmodifiedSince != "" && !isZero(modtime) {
		if t, err := http.ParseTime(r.IfUnmodifiedSince); err == nil && modtime.Truncate(time.Second).After(t) {
			return PreconditionFailed, false
		}
	}
	if r.IfNoneMatch != "" {
		if anyMatch(r.IfNoneMatch, etag, false) {
			if getOrHead {
				return NotModified, false
			}
			return PreconditionFailed, false
		}
	} else if getOrHead && r.IfModifiedSince != "" && !isZero(modtime) {
		if t, err := http.ParseTime(r.IfModifiedSince); err == nil && !modtime.Truncate(time.Second).After(t) {
			return NotModified, false
		}
	}
	if r.Range == "" || !getOrHead {
		return Proceed, false
	}
	return Proceed, ifRangeHolds(r.IfRange, etag, modtime)
}

// ifRangeHolds reports whether an If-Range value (empty, an entity tag or
// an HTTP date) lets the Range apply.
func ifRangeHolds(v, etag string, modtime time.Time) bool {
	if v == "" {
		return true
	}
	if strings.HasPrefix(v, `"`) || strings.HasPrefix(v, "W/") {
		tag, rest, ok := scanETag(v)
		return ok && strings.Trim(rest, " \t") == "" && strongMatch(tag, etag)
	}
	t, err := http.ParseTime(v)
	return err == nil && !isZero(modtime) && modtime.Truncate(time.Second).Equal(t)
}

// anyMatch reports whether the list of entity tags in an If-Match or
// If-None-Match value ("*" or `"a", W/"b"`) matches etag, strongly or
// weakly. "*" matches any existing resource, which this one is.
func anyMatch(list, etag string, strong bool) bool {
	if strings.Trim(list, " \t") == "*" {
		return true
	}
	for list != "" {
		list = strings.TrimLeft(list, " \t,")
		if list == "" {
			break
		}
		tag, rest, ok := scanETag(list)
		if !ok {
			return false
		}
		if strong && strongMatch(tag, etag) || !strong && weakMatch(tag, etag) {
			return true
		}
		list = rest
	}
	return false
}

// scanETag reads one entity tag (`"x"` or `W/"x"`) from the front of s.
func scanETag(s string) (tag, rest string, ok bool) {
	s = strings.TrimLeft(s, " \t")
	start := 0
	if strings.HasPrefix(s, "W/") {
		start = 2
	}
	if len(s)-start < 2 || s[start] != '"' {
		return "", "", false
	}
	for i := start + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return s[:i+1], s[i+1:], true
		case c == 0x21 || c >= 0x23 && c <= 0x7E || c >= 0x80:
		default:
			return "", "", false
		}
	}
	return "", "", false
}

// strongMatch: both tags strong and identical.
func strongMatch(a, b string) bool {
	return a == b && a != "" && !strings.HasPrefix(a, "W/")
}

// weakMatch: identical opaque tags, weak or not.
func weakMatch(a, b string) bool {
	return b != "" && strings.TrimPrefix(a, "W/") == strings.TrimPrefix(b, "W/")
}

// isZero reports a modification time that means "unknown" (the zero time
// or the Unix epoch, as net/http treats them).
func isZero(t time.Time) bool { return t.IsZero() || t.Equal(time.Unix(0, 0)) }
