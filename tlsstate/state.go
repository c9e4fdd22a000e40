package tlsstate

// State is the phase of one TLS connection as seen from the loop.
type State int32

const (
	// AwaitingHello means the ClientHello is not complete yet. No goroutine
	// runs for the connection.
	AwaitingHello State = iota
	// Handshaking means the handshake goroutine runs, or the connection
	// waits in the handshake queue for one.
	Handshaking
	// Established means application data can flow both ways.
	Established
	// Closing means one side has sent close_notify and the other has not.
	Closing
	// Closed means both sides sent close_notify, the handshake was
	// abandoned with CloseNotify, or the connection was released.
	Closed
	// Failed means the connection hit an error; see Conn.Err.
	Failed
)

var stateNames = [...]string{
	AwaitingHello: "awaiting_hello",
	Handshaking:   "handshaking",
	Established:   "established",
	Closing:       "closing",
	Closed:        "closed",
	Failed:        "failed",
}

// String returns the state's snake_case name, e.g. "awaiting_hello".
func (s State) String() string {
	if s >= 0 && int(s) < len(stateNames) {
		return stateNames[s]
	}
	return "unknown"
}

// Reason classifies why a connection failed. The names are stable and are
// used as keys in Stats.
type Reason uint8

const (
	// ReasonNone means no failure.
	ReasonNone Reason = iota
	// ReasonTimeout means the handshake did not finish within
	// Config.HandshakeTimeout.
	ReasonTimeout
	// ReasonNotTLS means the first byte was not a TLS handshake record,
	// for example plaintext HTTP.
	ReasonNotTLS
	// ReasonBadRecord means a malformed record before the handshake, or a
	// record that failed to decrypt or parse after it.
	ReasonBadRecord
	// ReasonAlert means the peer sent a fatal alert.
	ReasonAlert
	// ReasonHandshakeError means crypto/tls rejected the handshake (no
	// common version, cipher or ALPN protocol, bad client certificate...).
	ReasonHandshakeError
	// ReasonClientGone means the connection was released before its
	// handshake finished, after the client had sent at least one byte,
	// and what the client sent did not finish it. (A client that closes
	// right after its Finished completed its handshake: it counts in
	// Full or Resumed, even when the loop saw the close first.)
	ReasonClientGone
	// ReasonLimiterRefused means all handshake slots and the queue were
	// full.
	ReasonLimiterRefused
	// ReasonOverflow means the ClientHello did not fit in MaxBuffered.
	ReasonOverflow
	// ReasonAborted means CloseNotify was called before the handshake
	// finished (typically a server shutdown).
	ReasonAborted
	// ReasonEvicted means the handshake waited for its client's next
	// flight while MaxParked others did too, and it was the oldest: it
	// made room for a newer one.
	ReasonEvicted
	// ReasonLookupRefused means the handshake reached a certificate lookup
	// while Config.MaxSlowLookups others were waiting on slow ones.
	ReasonLookupRefused

	numReasons
)

var reasonNames = [...]string{
	ReasonNone:           "none",
	ReasonTimeout:        "timeout",
	ReasonNotTLS:         "not_tls",
	ReasonBadRecord:      "bad_record",
	ReasonAlert:          "alert",
	ReasonHandshakeError: "handshake_error",
	ReasonClientGone:     "client_gone",
	ReasonLimiterRefused: "limiter_refused",
	ReasonOverflow:       "overflow",
	ReasonAborted:        "aborted",
	ReasonEvicted:        "evicted",
	ReasonLookupRefused:  "lookup_refused",
}

// String returns the reason's snake_case name, e.g. "not_tls".
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return "unknown"
}
