package http1

// Default limits, used for zero (or negative) fields of [Limits].
const (
	DefaultMaxTargetBytes = 8 << 10  // request-target
	DefaultMaxHeaderBytes = 16 << 10 // request line + header section; trailer section
	DefaultMaxHeaderCount = 128      // header fields; trailer fields
	DefaultMaxBodyBytes   = 8 << 20  // decoded body
)

// Limits bounds what the parser accepts. Zero fields mean the defaults.
type Limits struct {
	// MaxTargetBytes bounds the request-target; a longer one is a 414,
	// detected as soon as the partial request line holds too many target
	// bytes.
	MaxTargetBytes int
	// MaxHeaderBytes bounds the request line plus header section (through
	// the empty line), and separately the trailer section of a chunked body;
	// more is a 431, detected as soon as exceeded.
	MaxHeaderBytes int
	// MaxHeaderCount bounds the number of header fields, and separately of
	// trailer fields; more is a 431.
	MaxHeaderCount int
	// MaxBodyBytes bounds the decoded body. A larger Content-Length is a 413
	// at the head, before any body byte is read; a chunked body is a 413 as
	// soon as a chunk size makes the running total exceed it.
	MaxBodyBytes int64
}

func (l *Limits) maxTarget() int {
	if l.MaxTargetBytes <= 0 {
		return DefaultMaxTargetBytes
	}
	return l.MaxTargetBytes
}

func (l *Limits) maxHeader() int {
	if l.MaxHeaderBytes <= 0 {
		return DefaultMaxHeaderBytes
	}
	return l.MaxHeaderBytes
}

func (l *Limits) maxCount() int {
	if l.MaxHeaderCount <= 0 {
		return DefaultMaxHeaderCount
	}
	return l.MaxHeaderCount
}

// MaxBody is MaxBodyBytes, or DefaultMaxBodyBytes when it is not set.
func (l *Limits) MaxBody() int64 {
	if l.MaxBodyBytes <= 0 {
		return DefaultMaxBodyBytes
	}
	return l.MaxBodyBytes
}
