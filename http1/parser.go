package http1

// Event says what [Parser.Parse] reached.
type Event uint8

const (
	// NeedMore means Parse consumed everything it was given (n == len(buf))
	// and nothing is complete yet.
	NeedMore Event = iota
	// HeadComplete means the head is parsed and the request has a body still
	// to come: every field but Body and Trailers is valid. (The engine sends
	// "100 Continue" here when Expect100 is set.) Call Parse again, with the
	// bytes after the n it returned, for the body.
	HeadComplete
	// MessageComplete means the whole request (head and body) is parsed.
	// Requests without a body go straight here. For a streamed body (see
	// [Parser.StreamBody]) it may come with the body's last bytes in
	// [Parser.Data].
	MessageComplete
	// BodyData is returned only for a streamed body (see [Parser.StreamBody]):
	// [Parser.Data] holds body bytes decoded by this call, and more of the
	// body is still to come.
	BodyData
)

// String returns the event's name.
func (e Event) String() string {
	switch e {
	case NeedMore:
		return "NeedMore"
	case HeadComplete:
		return "HeadComplete"
	case MessageComplete:
		return "MessageComplete"
	case BodyData:
		return "BodyData"
	}
	return "Event(?)"
}

// maxLeadingEmptyLines is how many CRLFs before a request line are ignored
// (RFC 9112 section 2.2 asks to ignore at least one).
const maxLeadingEmptyLines = 4

// Parser states.
const (
	stHead    uint8 = iota // reading a head (or the empty lines before it)
	stFixed                // reading a Content-Length body
	stChunked              // reading a chunked body
	stFailed               // a violation was found; sticky until Reset
)

// Parser parses a stream of pipelined requests on one connection. The zero
// value is ready to use with the default limits. A Parser is not safe for
// concurrent use.
type Parser struct {
	// Limits bounds what the parser accepts; zero fields mean the defaults.
	// Change it only between connections (before Parse or after Reset).
	Limits Limits
	// DeferBodyLimit moves the check of a declared Content-Length against
	// Limits.MaxBodyBytes from the head to the body: Parse returns
	// HeadComplete for such a request, so that the caller may still stream
	// its body with a limit of its own ([Parser.StreamBody]); a buffered body
	// gets its 413 from [Parser.BufferBody] or the next Parse. Set it only
	// when the caller uses StreamBody; Reset keeps it.
	DeferBodyLimit bool

	state uint8
	err   Error // the sticky violation, handed out by pointer

	// Before the request line.
	started bool // the first byte of the request line was seen
	lead    int  // empty lines skipped
	leadCR  bool // a CR of a leading empty line awaits its LF

	// Head framing scan (see scan.go). Offsets are relative to the first
	// byte of the request line.
	hbuf      []byte  // buffered incomplete head
	scan      int     // bytes scanned so far
	lineStart int     // start of the line being scanned
	nlines    int     // complete lines (request line included)
	sp1, sp2  int     // first and second SP of the request line, or -1 (-2: none before LF)
	lineEnds  []int32 // offset of each line's LF

	// Bodies.
	stream    bool   // the body is handed out as BodyData (StreamBody)
	lenOver   bool   // DeferBodyLimit: the Content-Length is over bodyMax
	bodyMax   int64  // the body limit of the request being read
	data      []byte // body bytes of the last Parse call (streamed body)
	remaining int64  // Content-Length bytes still to read
	total     uint64 // chunked: decoded bytes so far
	cs        uint8  // chunk decoder state
	csize     uint64 // chunk size being read / data left in the chunk
	cdigits   int    // hex digits of the chunk size
	cline     int    // bytes of the chunk size line so far
	tline     int    // start of the trailer line being read (in Request.trail)
	tcount    int    // trailer fields so far
	toffs     []int32
}

// Parse consumes bytes of buf into req.
//
// It returns how many bytes it used (never more than len(buf); the caller
// discards exactly those), what it reached, and an [*Error] on a violation.
// It stops right after MessageComplete: leftover bytes belong to the next
// request, which the caller parses into a fresh or Reset Request with another
// Parse call. Between HeadComplete and MessageComplete, pass the same req.
//
// When err is not nil, n is 0 and ev is NeedMore, and the parser stays
// failed: every later call returns the same error until [Parser.Reset].
//
// Input may be split at any byte boundary: the result is exactly the same as
// when it arrives whole.
func (p *Parser) Parse(req *Request, buf []byte) (n int, ev Event, err error) {
	var e *Error
	p.data = nil
	switch p.state {
	case stHead:
		n, ev, e = p.parseHeadBytes(req, buf)
	case stFixed:
		if p.lenOver {
			e = &errBodyTooLarge
			break
		}
		n, ev = p.readFixed(req, buf)
	case stChunked:
		n, ev, e = p.readChunked(req, buf)
	default:
		return 0, NeedMore, &p.err
	}
	if e != nil {
		p.err = *e
		p.state = stFailed
		return 0, NeedMore, &p.err
	}
	return n, ev, nil
}

// Reset readies the parser for a new connection, keeping its buffers.
func (p *Parser) Reset() {
	*p = Parser{
		Limits:         p.Limits,
		DeferBodyLimit: p.DeferBodyLimit,
		hbuf:           p.hbuf[:0],
		lineEnds:       p.lineEnds[:0],
		toffs:          p.toffs[:0],
	}
	p.resetScan()
}

// Idle reports whether the parser sits between messages holding nothing:
// no part of a request (not even a leading empty line) has been seen since
// the last one completed. An idle parser can be Reset and reused for another
// connection without losing anything.
func (p *Parser) Idle() bool {
	return p.state == stHead && !p.started && p.lead == 0 && !p.leadCR && len(p.hbuf) == 0 && p.err.Status == 0
}

// Buffered reports how many bytes of an incomplete head the parser holds
// internally (at most Limits.MaxHeaderBytes), so the caller can bound memory.
func (p *Parser) Buffered() int { return len(p.hbuf) }

// resetScan clears the head scanner for the next head.
func (p *Parser) resetScan() {
	p.hbuf = p.hbuf[:0]
	p.scan, p.lineStart, p.nlines = 0, 0, 0
	p.sp1, p.sp2 = -1, -1
	p.lineEnds = p.lineEnds[:0]
}

// endMessage readies the parser for the next request on the connection.
func (p *Parser) endMessage() {
	p.state = stHead
	p.started, p.lead, p.leadCR = false, 0, false
	p.stream, p.lenOver = false, false
	p.remaining, p.total = 0, 0
	p.cs, p.csize, p.cdigits, p.cline = csSize, 0, 0, 0
	p.tline, p.tcount = 0, 0
	p.toffs = p.toffs[:0]
}
