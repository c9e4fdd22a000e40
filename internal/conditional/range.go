package conditional

import (
	"errors"
	"strconv"
	"strings"

	"github.com/gwist/gwist/http1"
)

// MaxRanges is the most ranges one Range header may ask for; beyond it
// the header is ignored and the whole content sent, so that a request for
// thousands of tiny ranges cannot turn a small file into a large
// multipart response.
const MaxRanges = 64

// Range is one byte range of the content: Length bytes from Start.
type Range struct {
	Start, Length int64
}

// ContentRange is the Content-Range value for r in content of size bytes,
// e.g. "bytes 0-99/1000".
func (r Range) ContentRange(size int64) string {
	b := make([]byte, 0, 48)
	b = append(b, "bytes "...)
	b = strconv.AppendInt(b, r.Start, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, r.Start+r.Length-1, 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, size, 10)
	return string(b)
}

// Errors from ParseRange. Both are answered 416 with
// "Content-Range: bytes */size", as net/http does.
var (
	// ErrInvalidRange: the header is not a valid bytes range set.
	ErrInvalidRange = errors.New("invalid range")
	// ErrUnsatisfiable: no range overlaps the content.
	ErrUnsatisfiable = errors.New("no range overlaps the content")
)

// ParseRange parses a Range header value ("bytes=0-99,200-", "bytes=-500")
// against content of size bytes. It returns nil, nil when the header is
// empty or should be ignored: a unit other than bytes, more than MaxRanges
// ranges, or ranges that add up to more than the content (the whole
// content is then the cheaper answer). Ranges starting past the end are
// dropped; when none is left the error is ErrUnsatisfiable. Ends past the
// content are clipped.
func ParseRange(s string, size int64) ([]Range, error) {
	if s == "" {
		return nil, nil
	}
	const prefix = "bytes="
	if !strings.HasPrefix(s, prefix) {
		if strings.Contains(s, "=") {
			return nil, nil // another unit: ignore the header (RFC 9110 14.2)
		}
		return nil, ErrInvalidRange
	}
	var ranges []Range
	var sum int64
	noOverlap := false
	count := 0
	for spec := range strings.SplitSeq(s[len(prefix):], ",") {
		spec = strings.Trim(spec, " \t")
		if spec == "" {
			continue
		}
		if count++; count > MaxRanges {
			return nil, nil
		}
		first, last, ok := strings.Cut(spec, "-")
		if !ok {
			return nil, ErrInvalidRange
		}
		first, last = strings.Trim(first, " \t"), strings.Trim(last, " \t")
		var r Range
		if first == "" {
			// "-N": the last N bytes.
			n, ok := parseDigits(last)
			if !ok {
				return nil, ErrInvalidRange
			}
			if n == 0 {
				noOverlap = true
				continue
			}
			n = min(n, size)
			r = Range{Start: size - n, Length: n}
			if n == 0 {
				noOverlap = true // "-N" of empty content
				continue
			}
		} else {
			start, ok := parseDigits(first)
			if !ok {
				return nil, ErrInvalidRange
			}
			if start >= size {
				noOverlap = true
				continue
			}
			end := size - 1
			if last != "" {
				e, ok := parseDigits(last)
				if !ok || e < start {
					return nil, ErrInvalidRange
				}
				end = min(e, size-1)
			}
			r = Range{Start: start, Length: end - start + 1}
		}
		sum += r.Length
		ranges = append(ranges, r)
	}
	if len(ranges) == 0 {
		if noOverlap {
			return nil, ErrUnsatisfiable
		}
		return nil, ErrInvalidRange // "bytes=" or only commas
	}
	if sum > size {
		return nil, nil
	}
	return ranges, nil
}

// parseDigits parses a non-empty run of ASCII digits that fits an int64:
// the grammar of a Content-Length.
var parseDigits = http1.ParseContentLength
