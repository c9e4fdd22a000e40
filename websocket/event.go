package websocket

// EventKind says what an [Event] reports.
type EventKind uint8

// The kinds of [Event].
const (
	// EventMessage: a complete data message; Event.Opcode is OpText (the
	// payload is valid UTF-8) or OpBinary. A compressed message arrives
	// inflated.
	EventMessage EventKind = iota + 1
	// EventPing: a ping (Event.Payload, at most 125 bytes). The
	// application answers with a pong carrying the same payload.
	EventPing
	// EventPong: a pong (Event.Payload).
	EventPong
	// EventClose: the peer's close frame. Event.Code is its code
	// (CloseNoStatus for an empty close frame), Event.Reason its reason and
	// Event.Payload the raw payload. The Reader reads nothing more; the
	// application echoes a close frame (if it has not sent one) and closes.
	EventClose
)

// String returns the kind's name.
func (k EventKind) String() string {
	switch k {
	case EventMessage:
		return "message"
	case EventPing:
		return "ping"
	case EventPong:
		return "pong"
	case EventClose:
		return "close"
	}
	return "event(" + itoa(int(k)) + ")"
}

// Event is what a [Reader] reports (Reader.Next).
//
// Payload is borrowed: it points into the slice given to Feed (a frame
// that arrived whole, unmasked in place) or into the Reader's own buffer
// (a message assembled from several frames or reads, an inflated message,
// a control frame split over reads). Either way it is valid only until
// the next call to Feed, and, when it points into the input, only while
// the caller leaves that input unmodified. Copy it to keep it.
type Event struct {
	Kind    EventKind
	Opcode  Opcode // OpText or OpBinary for EventMessage; the frame's opcode otherwise
	Payload []byte
	Code    CloseCode // EventClose only
	Reason  string    // EventClose only (a copy; the application's)
}
