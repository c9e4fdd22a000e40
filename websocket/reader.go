package websocket

import "encoding/binary"

// Default limits, used when a Config field is zero.
const (
	// DefaultMaxFrame is the largest frame payload a Reader accepts: 1 MiB.
	DefaultMaxFrame = 1 << 20
	// DefaultMaxMessage is the largest message a Reader assembles (after
	// inflation, for a compressed one): 4 MiB.
	DefaultMaxMessage = 4 << 20
)

// Config configures a [Reader].
type Config struct {
	// Client makes the Reader read as a client does: frames must be
	// unmasked (a masked one is a protocol error). By default it reads as
	// a server: every frame must be masked.
	Client bool
	// MaxFrame is the largest data frame payload accepted (DefaultMaxFrame
	// when zero). A larger one fails with CloseMessageTooBig, seen from
	// its header before any payload is buffered.
	MaxFrame int64
	// MaxMessage is the largest message accepted, over all its fragments
	// and, for a compressed message, both before and after inflation
	// (DefaultMaxMessage when zero). Beyond it: CloseMessageTooBig.
	MaxMessage int64
	// Deflate, when set, is the permessage-deflate agreement from the
	// handshake ([NegotiateDeflate]); messages with RSV1 set are inflated.
	// Without it RSV1 is a protocol error.
	Deflate *DeflateParams
}

// Reader states.
const (
	stHeader  uint8 = iota // expecting a frame header
	stPayload              // reading a frame's payload
	stClosed               // a close frame was read: nothing more is read
	stFailed               // a protocol error: see err
)

// Event states.
const (
	evNone    uint8 = iota
	evPending       // an event waits for Next
	evTaken         // Next returned it; its payload is valid until Feed
)

// Reader parses the frames of one WebSocket connection, without I/O: the
// owner feeds it the bytes read from the peer ([Reader.Feed]) and takes
// the events they complete ([Reader.Next]). It checks every rule of RFC
// 6455 (and RFC 7692 when Deflate is set); after a violation it stops and
// [Reader.Err] gives the close frame to send.
//
// A Reader is not safe for concurrent use: one owner makes every call.
type Reader struct {
	maxFrame   int64
	maxMessage int64
	infl       *inflater // nil without permessage-deflate
	client     bool

	// The frame being read.
	state   uint8
	op      Opcode
	fin     bool
	masked  bool
	started bool // some of the frame's payload was consumed
	maskPos uint8
	mask    [4]byte
	remain  int64 // payload bytes still to come

	// The data message being read (msgOp != 0 from its first frame until
	// its last).
	msgOp      Opcode
	compressed bool
	msgLen     int64   // payload bytes so far, as sent (compressed or not)
	buf        *msgBuf // the message assembled; nil between messages
	text       utf8State

	ctlLen uint8
	evs    uint8 // evNone, evPending or evTaken
	ev     Event
	err    *CloseError
	ctl    [MaxControlPayload]byte // a control frame split over Feeds
}

// NewReader returns a Reader expecting the first frame of a connection.
func NewReader(cfg Config) *Reader {
	r := &Reader{}
	r.init(cfg)
	return r
}

func (r *Reader) init(cfg Config) {
	*r = Reader{
		maxFrame:   cfg.MaxFrame,
		maxMessage: cfg.MaxMessage,
		client:     cfg.Client,
	}
	if r.maxFrame <= 0 {
		r.maxFrame = DefaultMaxFrame
	}
	if r.maxMessage <= 0 {
		r.maxMessage = DefaultMaxMessage
	}
	if cfg.Deflate != nil {
		r.infl = newInflater(*cfg.Deflate, cfg.Client)
	}
}

// Reset makes r a new Reader for cfg (as NewReader does), giving back any
// buffer it holds; the Payload of its last event is no longer valid. With
// Idle it lets a server hold no Reader while a connection is quiet: when
// Idle is true, a Reset Reader (or a new one) reads on from there as r
// would.
func (r *Reader) Reset(cfg Config) {
	putBuf(r.buf)
	r.init(cfg)
}

// Idle reports whether r is between frames and holds nothing a new Reader
// would not: no frame or message in progress, no event waiting for Next,
// no failure, not closed, and no permessage-deflate window kept for the
// next message (context takeover). The bytes of an incomplete header are
// the caller's (Feed leaves them). The last event's Payload may still be
// in use: Reset (or drop) r only once the caller is done with it.
func (r *Reader) Idle() bool {
	return r.state == stHeader && r.msgOp == 0 && r.evs != evPending &&
		(r.infl == nil || len(r.infl.window) == 0)
}

// NextIsControl reports whether the bytes Feed would take next from b, the
// input not yet fed, belong to a control frame (ping, pong or close): the
// rest of one already begun, or, between frames, one whose first byte is
// b's. It is false while an event waits for Next. A server that stops
// reading a peer's data while the peer does not read may still take the
// control frames in between.
func (r *Reader) NextIsControl(b []byte) bool {
	switch {
	case r.evs == evPending:
		return false
	case r.state == stPayload:
		return r.op.IsControl()
	}
	return r.state == stHeader && len(b) > 0 && Opcode(b[0]&0x0f).IsControl()
}

// Feed consumes bytes read from the peer and returns how many it used;
// the caller keeps b[n:] and feeds it again, with more input appended.
// Feed stops:
//
//   - after a frame that completes an event: call Next, then Feed the rest
//     (n may be less than len(b) with whole frames left);
//   - before an incomplete frame header (at most 14 bytes are left);
//   - at a protocol error (Err is then set and Feed consumes nothing more);
//   - after the peer's close frame (Feed consumes nothing more).
//
// Payload bytes are consumed as they arrive, also from an incomplete
// frame. Feed unmasks the payload bytes it consumes in place in b. While
// an event waits for Next, Feed consumes nothing; once Next has returned
// it, the next Feed ends the validity of its Payload.
func (r *Reader) Feed(b []byte) (n int) {
	switch r.evs {
	case evPending:
		return 0
	case evTaken:
		r.evs = evNone
		r.ev = Event{}
		if r.msgOp == 0 && r.buf != nil { // the event held the message buffer
			putBuf(r.buf)
			r.buf = nil
		}
	}
	for r.evs == evNone {
		switch r.state {
		case stHeader:
			k := r.readHeader(b[n:])
			if k == 0 {
				return n
			}
			n += k
			if r.remain == 0 {
				r.onPayload(nil, true)
			}
		case stPayload:
			p := b[n:]
			if len(p) == 0 {
				return n
			}
			if int64(len(p)) > r.remain {
				p = p[:r.remain]
			}
			whole := !r.started && int64(len(p)) == r.remain
			r.started = true
			if r.masked {
				r.maskPos = uint8(maskBytes(r.mask, int(r.maskPos), p))
			}
			n += len(p)
			r.remain -= int64(len(p))
			r.onPayload(p, whole)
		default:
			return n
		}
	}
	return n
}

// Next returns the event the last Feed completed, once; false when there
// is none.
func (r *Reader) Next() (Event, bool) {
	if r.evs != evPending {
		return Event{}, false
	}
	r.evs = evTaken
	return r.ev, true
}

// Err returns the protocol violation that stopped the Reader, or nil: the
// code and reason of the close frame to send before closing.
func (r *Reader) Err() *CloseError { return r.err }

// Closed reports whether the peer's close frame has been read.
func (r *Reader) Closed() bool { return r.state == stClosed }

// InMessage reports whether a data message has started and not ended
// (its first frames read, its last not yet).
func (r *Reader) InMessage() bool { return r.msgOp != 0 }

// Buffered returns the bytes of message buffer the Reader holds (capacity,
// not length): 0 between messages once the last event was released.
func (r *Reader) Buffered() int { return r.buf.size() }

func (r *Reader) fail(code CloseCode, reason string) {
	r.err = &CloseError{Code: code, Reason: reason}
	r.state = stFailed
	if r.buf != nil {
		putBuf(r.buf)
		r.buf = nil
	}
}

// readHeader parses a frame header at the start of b and returns its
// length, or 0 when b holds only part of it or it breaks a rule (then
// r.err is set). The rules that need only the first two bytes are checked
// as soon as they arrive.
func (r *Reader) readHeader(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	b0, b1 := b[0], b[1]
	fin := b0&bitFIN != 0
	rsv1 := b0&bitRSV1 != 0
	op := Opcode(b0 & 0x0F)
	switch {
	case b0&(bitRSV2|bitRSV3) != 0:
		r.fail(CloseProtocolError, "reserved bits RSV2/RSV3 set")
		return 0
	case !op.known():
		r.fail(CloseProtocolError, "reserved opcode "+itoa(int(op)))
		return 0
	case op.IsControl():
		if !fin {
			r.fail(CloseProtocolError, "fragmented control frame")
			return 0
		}
		if b1&0x7F > MaxControlPayload {
			r.fail(CloseProtocolError, "control frame payload over 125 bytes")
			return 0
		}
		if rsv1 {
			r.fail(CloseProtocolError, "RSV1 set on a control frame")
			return 0
		}
	case op == OpContinuation:
		if r.msgOp == 0 {
			r.fail(CloseProtocolError, "continuation frame without a message to continue")
			return 0
		}
		if rsv1 {
			r.fail(CloseProtocolError, "RSV1 set on a continuation frame")
			return 0
		}
	default:
		if r.msgOp != 0 {
			r.fail(CloseProtocolError, "new data frame inside a fragmented message")
			return 0
		}
		if rsv1 && r.infl == nil {
			r.fail(CloseProtocolError, "RSV1 set without permessage-deflate")
			return 0
		}
	}
	masked := b1&bitMask != 0
	if masked == r.client {
		if r.client {
			r.fail(CloseProtocolError, "masked frame from the server")
		} else {
			r.fail(CloseProtocolError, "unmasked frame from the client")
		}
		return 0
	}
	hl := 2
	switch b1 & 0x7F {
	case 126:
		hl = 4
	case 127:
		hl = 10
	}
	if masked {
		hl += 4
	}
	if len(b) < hl {
		return 0
	}
	length := int64(b1 & 0x7F)
	switch length {
	case 126:
		length = int64(binary.BigEndian.Uint16(b[2:]))
		if length < 126 {
			r.fail(CloseProtocolError, "frame length not minimally encoded")
			return 0
		}
	case 127:
		u := binary.BigEndian.Uint64(b[2:])
		if u>>63 != 0 {
			r.fail(CloseProtocolError, "frame length with the most significant bit set")
			return 0
		}
		if u <= 0xFFFF {
			r.fail(CloseProtocolError, "frame length not minimally encoded")
			return 0
		}
		length = int64(u)
	}
	if !op.IsControl() {
		if length > r.maxFrame {
			r.fail(CloseMessageTooBig, "frame larger than "+itoa(int(r.maxFrame))+" bytes")
			return 0
		}
		if op == OpContinuation {
			if r.msgLen+length > r.maxMessage {
				r.fail(CloseMessageTooBig, "message larger than "+itoa(int(r.maxMessage))+" bytes")
				return 0
			}
		} else {
			if length > r.maxMessage {
				r.fail(CloseMessageTooBig, "message larger than "+itoa(int(r.maxMessage))+" bytes")
				return 0
			}
			r.msgOp, r.compressed, r.msgLen, r.text = op, rsv1, 0, utf8State{}
		}
		r.msgLen += length
	}
	r.op, r.fin, r.masked, r.started = op, fin, masked, false
	r.remain, r.maskPos, r.ctlLen = length, 0, 0
	if masked {
		copy(r.mask[:], b[hl-4:hl])
	}
	r.state = stPayload
	return hl
}

// onPayload takes the next consumed (unmasked) payload bytes of the
// current frame; whole says p is the frame's entire payload.
func (r *Reader) onPayload(p []byte, whole bool) {
	if r.remain == 0 {
		r.state = stHeader
	}
	if r.op.IsControl() {
		if !whole {
			r.ctlLen += uint8(copy(r.ctl[r.ctlLen:], p))
			if r.remain > 0 {
				return
			}
			p = r.ctl[:r.ctlLen]
		}
		r.onControl(p)
		return
	}
	if whole && r.fin && r.op != OpContinuation && !r.compressed {
		// A message in one frame, all in the input: no copy.
		r.msgOp = 0
		if r.op == OpText && !validUTF8(p) {
			r.fail(CloseInvalidPayload, "invalid UTF-8 in a text message")
			return
		}
		r.emit(Event{Kind: EventMessage, Opcode: r.op, Payload: p})
		return
	}
	if whole && r.fin && r.op != OpContinuation {
		// A compressed message in one frame, all in the input: inflated
		// from there.
		r.msgOp = 0
		out, err := r.infl.inflate(p, r.maxMessage, r.op == OpText)
		if err != nil {
			r.fail(err.Code, err.Reason)
			return
		}
		r.buf = out
		r.emit(Event{Kind: EventMessage, Opcode: r.op, Payload: out.b})
		return
	}
	if len(p) > 0 {
		r.buf = growBuf(r.buf, len(p), r.maxMessage)
		r.buf.b = append(r.buf.b, p...)
		if r.msgOp == OpText && !r.compressed && !r.text.feed(p) {
			r.fail(CloseInvalidPayload, "invalid UTF-8 in a text message")
			return
		}
	}
	if r.remain > 0 || !r.fin {
		return
	}
	op := r.msgOp
	r.msgOp = 0
	if r.compressed {
		out, err := r.infl.inflate(r.buf.bytes(), r.maxMessage, op == OpText)
		putBuf(r.buf)
		r.buf = out
		if err != nil {
			r.fail(err.Code, err.Reason)
			return
		}
	} else if op == OpText && !r.text.complete() {
		r.fail(CloseInvalidPayload, "invalid UTF-8 in a text message")
		return
	}
	payload := r.ctl[:0] // an empty message holds no buffer
	if r.buf != nil {
		payload = r.buf.b
	}
	r.emit(Event{Kind: EventMessage, Opcode: op, Payload: payload})
}

// onControl handles a complete control frame's payload.
func (r *Reader) onControl(p []byte) {
	switch r.op {
	case OpPing:
		r.emit(Event{Kind: EventPing, Opcode: OpPing, Payload: p})
	case OpPong:
		r.emit(Event{Kind: EventPong, Opcode: OpPong, Payload: p})
	case OpClose:
		ev := Event{Kind: EventClose, Opcode: OpClose, Payload: p, Code: CloseNoStatus}
		switch {
		case len(p) == 1:
			r.fail(CloseProtocolError, "close frame with a one-byte payload")
			return
		case len(p) >= 2:
			ev.Code = CloseCode(binary.BigEndian.Uint16(p))
			if !ValidCloseCode(ev.Code) {
				r.fail(CloseProtocolError, "invalid close code "+itoa(int(ev.Code)))
				return
			}
			if !validUTF8(p[2:]) {
				r.fail(CloseInvalidPayload, "invalid UTF-8 in the close reason")
				return
			}
			ev.Reason = string(p[2:])
		}
		r.emit(ev)
		r.state = stClosed
		if r.buf != nil && r.msgOp != 0 { // a fragmented message cut by the close
			putBuf(r.buf)
			r.buf = nil
		}
	}
}

func (r *Reader) emit(ev Event) {
	r.ev = ev
	r.evs = evPending
}
