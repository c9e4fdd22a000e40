// Package tlsstate is a sans-I/O TLS server state machine built on the
// standard crypto/tls package, for event loops that must never block.
//
// The engine feeds it ciphertext read from the network and takes back
// ciphertext to write and plaintext to hand to the protocol layer:
//
//	tc.Feed(bytesFromSocket)              // copied
//	plain, err = tc.Process(plain[:0])    // decrypt what is complete
//	out = tc.AppendOutbound(out[:0])      // flights, records, alerts
//	write out to the socket
//
// A response is encrypted with Write (into the outbound queue) or, to spare
// the queue's copy, with Seal, which appends the pending ciphertext and the
// response's records to the caller's buffer.
//
// crypto/tls cannot resume an interrupted handshake, so the handshake runs
// on a goroutine of its own over an in-memory transport. Its flights are
// queued for the loop and announced with the notify callback given to
// NewConn; the engine then wakes its loop, which calls Process and
// AppendOutbound. Once the handshake is done the same *tls.Conn is used
// from the loop alone, over a transport whose reads never block.
//
// An engine that feeds the client's last flight can let the handshake
// goroutine finish at once on its own thread with Yield(runtime.Gosched):
// notifications are held back meanwhile, and the Process call that follows
// picks up the result, so the loop is not woken again for it (yield.go).
//
// No goroutine is started until a complete ClientHello has arrived, so
// connections that send nothing, or only part of a hello, cost a buffer and
// a timer. At most Config.MaxHandshakes handshake goroutines run at once;
// beyond that, connections wait in a bounded FIFO queue without a goroutine
// of their own and are served by the goroutines that finish first. A
// handshake goroutine grows its stack to 32 KiB in one step before its
// first handshake (stack.go): crypto/tls needs that much, and growing it
// in steps inside the handshake cost 3.5 % of the CPU under TLS churn.
//
// # Certificate lookups
//
// The Config's GetConfigForClient and GetCertificate run on the handshake
// goroutine and may wait on the network (autocert obtains a name's first
// certificate there). The handshake timeout does not count their time; one
// that runs past Config.SlowLookup gives its slot up until it returns, and
// at most Config.MaxSlowLookups wait so at once (lookup.go). A handshake
// that negotiates ProtoACMETLS (an ACME TLS-ALPN-01 validation) is answered
// by its certificate alone: Conn.ACMEChallenge tells the engine to close it.
//
// # Back-pressure
//
// A Conn holds at most MaxBuffered bytes of ciphertext that crypto/tls has
// not taken yet. Feed at most Room() bytes and leave the rest in the
// engine's input buffer. Once established, Process empties that buffer, so
// an engine feeds and processes in turn until its input is drained. While
// handshaking, the goroutine drains it: after Room returned 0 (or Feed
// returned ErrBufferFull), notify fires once there is room, and the engine
// must then feed again, not only call Process.
//
// # Where the engine re-arms TCP_QUICKACK
//
// Linux leaves quick-ACK mode on its own. The engine re-arms it on the loop
// after each Feed while State is AwaitingHello or Handshaking, after writing
// a handshake flight taken with AppendOutbound, and when State first reads
// Established after Process (the handoff), unless it writes a response in
// the same callback.
//
// # Failures
//
// Feed and Process return an *Error carrying a Reason once a connection has
// failed. The engine should write out whatever AppendOutbound still returns
// (an alert, or a plaintext 400 response when plain HTTP reached the TLS
// port), then close the socket and call Release.
//
// Release after the client has gone does not decide a running handshake's
// outcome: a client that closes right after its Finished completed its
// handshake, and its goroutine, which may not have read that Finished yet,
// ends it and counts it (at most MaxHandshakes released connections keep
// unread bytes for it; Conn.Release says how).
package tlsstate
