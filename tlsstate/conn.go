package tlsstate

import (
	"container/list"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// phase is the cross-goroutine state of a Conn, guarded by Conn.mu. The
// public State is the loop's view of it, synced by Feed and Process.
type phase uint8

const (
	phWaiting  phase = iota // AwaitingHello: bytes buffered, no goroutine
	phQueued                // ClientHello complete, waiting for a goroutine
	phRunning               // a goroutine runs the handshake
	phDone                  // handshake done; the loop owns the tls.Conn
	phFailed                // failed; Conn.err says why
	phAborted               // CloseNotify before the handshake finished
	phDraining              // released; the goroutine still reads the peer's last bytes
	phLeaving               // released; the goroutine's next read fails
	phReleased              // Release was called
)

// released reports whether Release was called: the loop is done with the
// Conn, whether or not its handshake goroutine still has to end.
func (p phase) released() bool { return p >= phDraining }

// Info is what the handshake negotiated, published once the connection
// is established.
type Info struct {
	Version            uint16 // tls.VersionTLS12, tls.VersionTLS13...
	CipherSuite        uint16
	NegotiatedProtocol string // ALPN result; "" if none
	Resumed            bool   // session resumed from a ticket
	ServerName         string // SNI sent by the client; "" if none
	PeerCertificates   []*x509.Certificate
	// ConnectionState is the full state captured when the handshake
	// finished, e.g. for an http.Request.TLS-like field.
	ConnectionState tls.ConnectionState
}

// Conn is one connection's TLS state. Its methods are for the connection's
// event loop only (one goroutine at a time), with two exceptions. State is
// safe anywhere. Write, Seal, AppendOutbound, HasOutbound and
// MarkFirstResponse may run on another goroutine (a worker sending a
// response) concurrently with Feed and Process, provided the caller never
// runs two Writes or Seals at once and never runs them concurrently with
// CloseNotify or Release: reads and writes of the tls.Conn are independent,
// and the outbound queue is locked (during a Seal it is the Seal's:
// AppendOutbound and HasOutbound see nothing until it returns).
type Conn struct {
	s      *Server
	notify func()
	tr     transport

	// Loop-owned.
	state     atomic.Int32 // State
	sentClose bool
	recvClose bool
	starved   bool // crypto/tls needs new bytes before it can decrypt more
	hello     helloScanner

	// signal wakes the handshake goroutine's Read (capacity 1, never
	// blocks a sender).
	signal chan struct{}

	mu       sync.Mutex // guards the fields below, up to elem
	phase    phase
	outDirty bool // out grew since the loop or notify last saw it
	wantRoom bool // the loop was refused bytes; notify when Read drains
	yielding bool // the loop is in Yield: notifications are held back
	blocking bool // the transport's Read waits for bytes (handshake)
	sealing  bool // a Seal runs: out is its caller's buffer
	// slot: its goroutine holds a limiter slot; parked: it waits for its
	// client, and elem is its place in Server.parked rather than
	// Server.queue. Both are guarded by Server.mu (they sit here because
	// bools on their own would cost a padded word).
	slot   bool
	parked bool
	// acme: the handshake negotiated ProtoACMETLS (set before phDone).
	acme bool
	// lookup: where the goroutine stands in a certificate lookup
	// (lookup.go).
	lookup lookupState
	tc     *tls.Conn // set with the ClientHello; the loop's after phDone
	ctx    context.Context
	cancel context.CancelFunc
	timer  *time.Timer
	in     []byte // ciphertext not yet read by crypto/tls, from inOff
	inOff  int
	out    []byte // ciphertext for the network; Seal's dst while it runs
	trErr  error  // set: the transport is closed, Read returns it
	err    *Error // set with phFailed
	stamps stamps // when things happened; Timings() expands them

	elem *list.Element // place in Server.queue or .parked; guarded by Server.mu

	// flight, if set, sends a handshake flight from the handshake
	// goroutine and returns what it could not send (see SetFlightWriter).
	flight func([]byte) []byte
}

// NewConn returns the TLS state for a newly accepted connection. Its
// handshake timeout starts now. notify is called, from another goroutine,
// when the connection has output or a state change for the loop; it must
// not block and must not call the Conn's methods (it runs under the Conn's
// lock); typically it wakes the loop, which then calls Process and
// AppendOutbound. notify is never called after Release returns; it may be
// nil if the caller polls Process instead. NewConn is safe for concurrent
// use.
func (s *Server) NewConn(notify func()) *Conn {
	c := &Conn{s: s, notify: notify, signal: make(chan struct{}, 1)}
	c.tr.c = c
	c.mu.Lock()
	c.stamps.accepted = time.Now()
	c.timer = time.AfterFunc(s.timeout, c.onTimeout)
	c.mu.Unlock()
	return c
}

// SetFlightWriter lets the handshake goroutine send its flights itself:
// before it waits for the client, it calls w with the flight instead of
// notifying the loop, and w returns what it could not send (nil when all
// went out). Only the rest, if any, is queued for AppendOutbound and
// notified. That saves the loop a wake-up per handshake flight. w runs on
// the handshake goroutine, with no lock of the Conn held; it must not call
// the Conn's methods and must not keep the slice. Call SetFlightWriter on
// the loop before the first Feed.
func (c *Conn) SetFlightWriter(w func(flight []byte) (rest []byte)) { c.flight = w }

// State returns the connection's state as of the last Feed, Process,
// CloseNotify or Release. Safe from any goroutine.
func (c *Conn) State() State { return State(c.state.Load()) }

func (c *Conn) setState(s State) { c.state.Store(int32(s)) }

// Feed hands the connection ciphertext from the network; b is copied.
// While the ClientHello is incomplete Feed checks it and fails fast on
// non-TLS input. Feed refuses input past MaxBuffered with ErrBufferFull
// (see Room). After a failure it returns the *Error; after Release,
// ErrClosed. Bytes that arrive after the peer's close_notify are ignored.
func (c *Conn) Feed(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.syncLocked(); err != nil {
		return err
	}
	if len(b) == 0 || c.recvClose || c.phase == phAborted {
		return nil
	}
	if c.bufferedLocked()+len(b) > MaxBuffered {
		c.wantRoom = true
		return ErrBufferFull
	}
	if c.stamps.firstByte == 0 { // checked here too: no clock read per Feed
		c.stamps.mark(&c.stamps.firstByte, time.Now())
	}
	if c.in == nil {
		c.in = getBuf()
	} else if c.inOff > 0 && len(c.in)+len(b) > cap(c.in) {
		n := copy(c.in, c.in[c.inOff:])
		c.in, c.inOff = c.in[:n], 0
	}
	c.in = append(c.in, b...)
	c.starved = false
	c.wakeLocked()
	if c.State() == AwaitingHello {
		return c.scanHelloLocked()
	}
	return nil
}

// scanHelloLocked checks the buffered ClientHello and, once it is
// complete, starts the handshake.
func (c *Conn) scanHelloLocked() error {
	st, reason, err := c.hello.scan(c.in)
	switch {
	case st == helloBad:
		if reason == ReasonNotTLS && looksLikeHTTP(c.in) {
			c.queueLocked([]byte(httpOnTLSPort))
		} else if reason != ReasonNotTLS {
			c.queueLocked(alertDecodeError)
		}
		c.failLocked(reason, err)
		c.setState(Failed)
		return c.err
	case st == helloPartial && c.bufferedLocked() >= MaxBuffered:
		c.queueLocked(alertDecodeError)
		c.failLocked(ReasonOverflow, errOverflow)
		c.setState(Failed)
		return c.err
	case st == helloPartial:
		return nil
	}
	c.stamps.mark(&c.stamps.hello, time.Now())
	c.tc = tls.Server(&c.tr, c.s.tls)
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.blocking = true
	c.phase = phQueued
	c.setState(Handshaking)
	queued, ok := c.s.admit(c)
	if !ok {
		c.failLocked(ReasonLimiterRefused, errRefused)
		c.setState(Failed)
		return c.err
	}
	if queued {
		c.shrinkInLocked()
	}
	return nil
}

// shrinkInLocked moves the buffered bytes (a ClientHello, a few hundred
// bytes to 2 KB) out of their 16 KB pool buffer: a full queue then holds
// 2 KB per connection rather than 16.
func (c *Conn) shrinkInLocked() {
	if cap(c.in) != poolBufSize {
		return
	}
	b := make([]byte, c.bufferedLocked())
	copy(b, c.in[c.inOff:])
	putBuf(c.in)
	c.in, c.inOff = b, 0
}

// Room returns how many more bytes Feed accepts now. Once established,
// Process makes room. While handshaking the goroutine does: after Room
// returned 0 or Feed returned ErrBufferFull, notify fires when it has.
func (c *Conn) Room() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.phase.released() {
		return 0
	}
	n := MaxBuffered - c.bufferedLocked()
	if n == 0 {
		c.wantRoom = true
	}
	return n
}

func (c *Conn) bufferedLocked() int { return len(c.in) - c.inOff }

// syncLocked brings the loop's State up to date with the phase and
// returns the error Feed and Process report, if any.
func (c *Conn) syncLocked() error {
	if c.phase.released() {
		return ErrClosed
	}
	switch c.phase {
	case phFailed:
		c.setState(Failed)
		return c.err
	case phAborted:
		c.setState(Closed)
		return ErrClosed
	case phDone:
		if c.State() == Handshaking {
			c.setState(Established)
		}
	}
	return nil
}

// Process advances the connection without blocking. It picks up the
// handshake's result and, once established, decrypts every complete record
// fed so far, appending the plaintext to plain. It returns io.EOF after the
// peer's close_notify, and the *Error once the connection has failed (an
// alert may then be waiting in AppendOutbound). Reading records may queue
// output (a TLS 1.3 KeyUpdate reply), so check HasOutbound afterwards. To
// avoid allocations pass a plain with spare capacity of 16 KiB or more.
func (c *Conn) Process(plain []byte) ([]byte, error) {
	c.mu.Lock()
	err := c.syncLocked()
	c.mu.Unlock()
	if err != nil {
		return plain, err
	}
	switch c.State() {
	case AwaitingHello, Handshaking:
		return plain, nil
	}
	if c.recvClose {
		return plain, io.EOF
	}
	return c.decrypt(plain)
}

// readChunk is how much room decrypt makes in plain at a time: a record.
const readChunk = maxPlainRecord

// decrypt reads records from the established tls.Conn until the transport
// has no complete record left.
func (c *Conn) decrypt(plain []byte) ([]byte, error) {
	if c.starved {
		return plain, nil // nothing fed since crypto/tls ran dry
	}
	for {
		var n int
		var err error
		if cap(plain)-len(plain) >= 512 {
			n, err = c.tc.Read(plain[len(plain):cap(plain)])
			plain = plain[:len(plain)+n]
		} else {
			// Probe with a small buffer so an idle Process allocates nothing.
			var probe [512]byte
			n, err = c.tc.Read(probe[:])
			if n > 0 {
				plain = append(slices.Grow(plain, readChunk), probe[:n]...)
			}
		}
		if err == nil {
			if n == 0 {
				return plain, nil
			}
			if c.cryptoDrained() {
				c.starved = true
				return plain, nil
			}
			continue
		}
		if _, ok := err.(wouldBlock); ok {
			c.starved = true
			return plain, nil
		}
		if err == io.EOF {
			c.recvClose = true
			if c.sentClose {
				c.setState(Closed)
			} else {
				c.setState(Closing)
			}
			return plain, io.EOF
		}
		c.mu.Lock()
		c.failLocked(classifyRecord(err), err)
		e := c.err
		c.mu.Unlock()
		c.setState(Failed)
		return plain, e
	}
}

// AppendOutbound appends all pending ciphertext (handshake flights,
// records, alerts, or the plaintext 400 for HTTP on the TLS port) to dst
// and returns it.
func (c *Conn) AppendOutbound(dst []byte) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sealing {
		return dst // out is the Seal's, which takes what is pending
	}
	if len(c.out) > 0 {
		dst = append(dst, c.out...)
	}
	putBuf(c.out)
	c.out, c.outDirty = nil, false
	return dst
}

// HasOutbound reports whether AppendOutbound has anything to return.
func (c *Conn) HasOutbound() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.out) > 0 && !c.sealing
}

// Write encrypts application data into the outbound queue. It returns
// ErrNotEstablished before the handshake is done, ErrClosed after
// CloseNotify or Release, and the *Error after a failure.
func (c *Conn) Write(plain []byte) error {
	if err := c.writable(); err != nil {
		return err
	}
	_, err := c.tc.Write(plain)
	return err
}

// Seal is Write followed by AppendOutbound without the outbound queue in
// between: it appends the pending ciphertext, then plain's records, to dst
// and returns it, the records going from crypto/tls straight to dst. The
// rules and errors are Write's; on an error dst holds what was appended
// before it.
func (c *Conn) Seal(dst, plain []byte) ([]byte, error) {
	if err := c.writable(); err != nil {
		return dst, err
	}
	// For the length of the write, dst is the outbound queue, so that
	// crypto/tls's records (and a KeyUpdate reply the loop's Process
	// writes meanwhile, in crypto/tls's order) are appended to it.
	c.mu.Lock()
	dst = append(dst, c.out...)
	putBuf(c.out)
	c.out, c.sealing = dst, true
	c.mu.Unlock()
	_, err := c.tc.Write(plain)
	c.mu.Lock()
	dst, c.out, c.outDirty, c.sealing = c.out, nil, false, false
	c.mu.Unlock()
	return dst, err
}

// writable returns the error Write reports in the connection's state, or
// nil.
func (c *Conn) writable() error {
	switch c.State() {
	case AwaitingHello, Handshaking:
		return ErrNotEstablished
	case Established, Closing:
		if c.sentClose {
			return ErrClosed
		}
		return nil
	case Failed:
		return c.Err()
	default:
		return ErrClosed
	}
}

// CloseNotify queues a close_notify alert and moves to Closing, or to
// Closed if the peer's close_notify was already read. Before the handshake
// is done there is nothing to notify: it abandons the handshake (counted
// as ReasonAborted) and moves to Closed. It is a no-op once closed or
// failed.
func (c *Conn) CloseNotify() {
	switch c.State() {
	case AwaitingHello, Handshaking:
		c.mu.Lock()
		if c.phase == phDone {
			c.mu.Unlock()
			c.setState(Established)
			c.CloseNotify()
			return
		}
		switch c.phase {
		case phFailed:
			c.mu.Unlock()
			c.setState(Failed)
			return
		case phWaiting, phQueued, phRunning:
			c.s.stats.failed[ReasonAborted].Add(1)
			c.phase = phAborted
			c.stopLocked(errAborted)
		}
		c.mu.Unlock()
		c.s.dequeue(c)
		c.setState(Closed)
	case Established, Closing:
		if c.sentClose {
			return
		}
		c.sentClose = true
		_ = c.tc.CloseWrite() // only fails if already sent
		if c.recvClose {
			c.setState(Closed)
		} else {
			c.setState(Closing)
		}
	}
}

// Err returns the failure, as an *Error, or nil.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		return nil
	}
	return c.err
}

// Info returns what the handshake negotiated. It is the zero Info until
// Process has reported the connection established, and after Release. It
// is built from the tls.Conn on each call rather than kept, so an idle
// connection does not carry a second copy of its ConnectionState.
func (c *Conn) Info() Info {
	c.mu.Lock()
	tc, done := c.tc, c.phase == phDone
	c.mu.Unlock()
	if !done || tc == nil {
		return Info{}
	}
	cs := tc.ConnectionState()
	return Info{
		Version:            cs.Version,
		CipherSuite:        cs.CipherSuite,
		NegotiatedProtocol: cs.NegotiatedProtocol,
		Resumed:            cs.DidResume,
		ServerName:         cs.ServerName,
		PeerCertificates:   cs.PeerCertificates,
		ConnectionState:    cs,
	}
}

// Timings returns the connection's recorded moments.
func (c *Conn) Timings() Timings {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stamps.timings()
}

// MarkFirstResponse records when the engine wrote the first response;
// only the first call counts. It feeds the server's response-delay stats.
func (c *Conn) MarkFirstResponse(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stamps.firstResponse != 0 {
		return
	}
	c.stamps.mark(&c.stamps.firstResponse, t)
	if c.stamps.established != 0 {
		c.s.stats.response(t.Sub(c.stamps.at(c.stamps.established)))
	}
}

// Release frees the connection: it stops the timer, abandons a queued
// handshake and drops buffered bytes. Release is idempotent and safe in
// any state; afterwards Feed, Process and Write return ErrClosed, and
// nothing of the Conn's reaches the loop or the socket.
//
// A running handshake is left to its goroutine to end, which Release does
// not wait for. A client that closes right after its Finished (an ACME
// validator, a health check) did complete its handshake: the goroutine
// may have read the Finished already, or have it still buffered. So the
// goroutine reads what the peer sent, fails when it needs more, counts
// the handshake as what those bytes made it (established, or client_gone)
// and frees what Release left it (drainedLocked). At most MaxHandshakes
// released connections keep unread bytes for their goroutine (phDraining,
// each until it has read them or its deadline passes); past that, their
// bytes are dropped and the handshake counts as client_gone.
func (c *Conn) Release() {
	c.mu.Lock()
	if c.phase.released() {
		c.mu.Unlock()
		return
	}
	if c.phase == phRunning && c.trErr == nil {
		if c.bufferedLocked() > 0 && c.lookup == lookupNone && c.s.startDraining() {
			c.phase = phDraining
		} else {
			c.phase = phLeaving
			putBuf(c.in)
			c.in, c.inOff = nil, 0
		}
		if c.lookup != lookupNone {
			c.stopLocked(errPeerGone) // the lookup's context ends
		} else {
			// Not the context: crypto/tls turns a handshake that completes
			// after its context ended into a failure. The goroutine sees
			// trErr once it has read what is buffered, and the deadline
			// still holds.
			c.trErr = errPeerGone
			c.wakeLocked()
		}
		putBuf(c.out)
		c.out, c.outDirty, c.tc = nil, false, nil
		c.mu.Unlock()
		c.setState(Closed)
		return
	}
	switch c.phase {
	case phWaiting, phQueued, phRunning:
		if c.stamps.firstByte == 0 {
			c.s.stats.abandoned.Add(1)
		} else {
			c.s.stats.failed[ReasonClientGone].Add(1)
		}
	}
	c.phase = phReleased
	c.stopLocked(ErrClosed)
	c.freeBuffersLocked()
	c.mu.Unlock()
	c.s.dequeue(c)
	if c.State() != Failed {
		c.setState(Closed)
	}
}

// freeBuffersLocked gives the buffers back to the pool and drops the
// tls.Conn.
func (c *Conn) freeBuffersLocked() {
	putBuf(c.in)
	putBuf(c.out)
	c.in, c.inOff, c.out, c.outDirty = nil, 0, nil, false
	c.tc = nil
}

// queueLocked appends b to the outbound queue.
func (c *Conn) queueLocked(b []byte) {
	if c.out == nil {
		c.out = getBuf()
	}
	c.out = append(c.out, b...)
	c.outDirty = true
}

// wakeLocked wakes a handshake goroutine waiting in the transport's Read.
// Once established signal is nil and the send's default case is taken.
func (c *Conn) wakeLocked() {
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

// stopLocked stops the timer, cancels the handshake context and closes
// the transport with err, waking a goroutine blocked in Read.
func (c *Conn) stopLocked(err error) {
	if c.timer != nil {
		c.timer.Stop()
	}
	if c.cancel != nil {
		c.cancel()
	}
	if c.trErr == nil {
		c.trErr = err
	}
	c.wakeLocked()
}

// failLocked records a failure for reason, counting it as a handshake or
// a connection error, and shuts down the handshake machinery.
func (c *Conn) failLocked(reason Reason, err error) {
	if c.phase == phFailed || c.phase.released() {
		return
	}
	if c.phase == phDone {
		c.s.stats.connErr[reason].Add(1)
	} else {
		c.s.stats.failed[reason].Add(1)
	}
	c.phase = phFailed
	c.err = &Error{Reason: reason, Err: err}
	c.stopLocked(errAborted)
}

// ConnectionState returns crypto/tls's state of the established
// connection; ok is false before the handshake is done and after Release.
// Unlike the other methods it may run on any goroutine (a handler's): the
// handshake is over, so the tls.Conn's handshake mutex is free, and the
// fields it reads do not change afterwards (a server never renegotiates).
func (c *Conn) ConnectionState() (cs tls.ConnectionState, ok bool) {
	c.mu.Lock()
	tc, done := c.tc, c.phase == phDone
	c.mu.Unlock()
	if !done || tc == nil {
		return tls.ConnectionState{}, false
	}
	return tc.ConnectionState(), true
}
