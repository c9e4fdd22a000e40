package tlsstate

import (
	"errors"
	"fmt"
)

// Error is the error Feed and Process return once a connection has failed.
// Use errors.As to read the Reason.
type Error struct {
	Reason Reason // why the connection failed
	Err    error  // underlying error, from crypto/tls when it has one
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err == nil {
		return "tlsstate: " + e.Reason.String()
	}
	return fmt.Sprintf("tlsstate: %s: %v", e.Reason, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

var (
	// ErrBufferFull is returned by Feed, without taking any byte, when the
	// ciphertext would exceed MaxBuffered. It is not fatal: call Process (or
	// wait for notify while handshaking) and feed the rest later; Room says
	// how much fits.
	ErrBufferFull = errors.New("tlsstate: ciphertext buffer full")
	// ErrNotEstablished is returned by Write before the handshake is done.
	ErrNotEstablished = errors.New("tlsstate: connection not established")
	// ErrClosed is returned by Write after CloseNotify, and by Feed,
	// Process and Write after Release.
	ErrClosed = errors.New("tlsstate: connection closed")

	// errTimeout closes the transport when the handshake deadline passes.
	errTimeout = errors.New("tlsstate: handshake timeout")
	// errAborted closes the transport when CloseNotify or Release abandon
	// a running handshake.
	errAborted = errors.New("tlsstate: handshake abandoned")
	// errPeerGone closes the transport of a handshake whose connection
	// was released while it ran: the handshake reads what the peer sent
	// first (phDraining), or fails at its next read (phLeaving).
	errPeerGone = errors.New("tlsstate: connection released during the handshake")
	// errEvicted closes the transport of the oldest parked handshake when
	// the parked bound is reached.
	errEvicted = errors.New("tlsstate: handshake evicted: oldest of too many waiting for their clients")
	// errLookupRefused is what a certificate lookup returns, without
	// running, while MaxSlowLookups others are slow.
	errLookupRefused = errors.New("tlsstate: certificate lookup refused: too many handshakes waiting on slow lookups")
	// errNotTLS and friends describe loop-side hello failures.
	errNotTLS       = errors.New("first record is not a TLS handshake")
	errOverflow     = errors.New("ClientHello larger than the ciphertext buffer")
	errRefused      = errors.New("handshake limiter and queue full")
	errNoCloseFirst = errors.New("CloseNotify before the handshake finished")
)

// wouldBlock is what the transport's Read returns once the handshake is
// over and no ciphertext is buffered. crypto/tls keeps a partial record and
// stays usable after a net.Error whose Temporary method reports true.
type wouldBlock struct{}

func (wouldBlock) Error() string   { return "tlsstate: no buffered ciphertext" }
func (wouldBlock) Timeout() bool   { return false }
func (wouldBlock) Temporary() bool { return true }
