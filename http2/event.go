package http2

import (
	"github.com/gwist/gwist/http1"
	xh2 "golang.org/x/net/http2"
)

// ErrCode is an HTTP/2 error code (RFC 9113 section 7); the values are
// x/net's (xh2.ErrCodeNo, xh2.ErrCodeProtocol, ...).
type ErrCode = xh2.ErrCode

// EventKind says what an [Event] reports.
type EventKind uint8

// The kinds of [Event].
const (
	// EventRequest: a stream's request headers are complete (Event.Request).
	// Event.EndStream is set when the request has no body. The application
	// now owns a handler slot until it calls Conn.Release(Stream).
	EventRequest EventKind = iota + 1
	// EventData: request body bytes (Event.Data), possibly empty with
	// Event.EndStream set at the end of the body. Every byte must be given
	// back with Conn.Consumed once the application has taken it (the peer's
	// window refills only then); Conn.Release gives back the rest.
	EventData
	// EventTrailers: the request's trailer fields (Event.Trailers); the body
	// ends here.
	EventTrailers
	// EventReset: the stream was reset (by the peer's RST_STREAM, or by the
	// connection after the peer broke the protocol on it; Event.Code says
	// why). Nothing more can be sent on it; the application still calls
	// Release. Only streams whose request was delivered get one.
	EventReset
	// EventWritable: a stream that found no room (Conn.Writable was 0, or
	// Conn.WriteData took less than offered) has room again.
	EventWritable
	// EventGoAway: the peer sent GOAWAY (Event.Code): it opens no new
	// streams; those in flight finish.
	EventGoAway
)

// Event is something the connection reports to the application
// (Conn.Next).
type Event struct {
	Kind   EventKind
	Stream uint32
	// Request is set for EventRequest. It is the application's: the
	// connection keeps no reference to it.
	Request *Request
	// Data is set for EventData. It points into the connection's read
	// buffer: it is valid only until the next call to Conn.Feed.
	Data []byte
	// EndStream: the peer's side of the stream ended with this event.
	EndStream bool
	// Trailers is set for EventTrailers (the application's).
	Trailers []http1.HeaderField
	// Code is set for EventReset and EventGoAway.
	Code ErrCode
}

// eventQueue is a FIFO that reuses its backing array.
type eventQueue struct {
	evs  []Event
	head int
}

func (q *eventQueue) push(e Event) { q.evs = append(q.evs, e) }

func (q *eventQueue) pop() (Event, bool) {
	if q.head >= len(q.evs) {
		return Event{}, false
	}
	e := q.evs[q.head]
	q.evs[q.head] = Event{}
	q.head++
	if q.head == len(q.evs) {
		q.evs, q.head = q.evs[:0], 0
	}
	return e, true
}

func (q *eventQueue) len() int { return len(q.evs) - q.head }
