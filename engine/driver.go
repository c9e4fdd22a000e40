//go:build unix

package engine

// protocol is the seam between a connection's lifecycle and the protocol
// spoken on it.
//
// The lifecycle (conn.go, with tls.go, io.go, readpause*.go,
// writetimeout.go, drain.go and direct.go) owns the socket: open and close,
// TLS, the phase timers, the read pause and the inbound and outbound caps,
// the write timeout, the drain, and the write side that a worker may hold
// (direct writes, streamed responses). It hands the driver plaintext input
// (conn.input, conn.consume) and writes what the driver leaves in conn.out
// at the end of every callback.
//
// A driver turns that input into Exchanges, runs them inline or on the
// worker pool, and turns their responses back into bytes, in the order and
// framing its protocol needs. HTTP/1 (h1driver.go) answers one request
// after another in request order, so its responses queue in batches behind
// each other; an HTTP/2 driver has many exchanges in flight on one
// connection and completes and interleaves them per stream; an upgraded
// connection (WebSocket, wsdriver.go) has no exchanges at all after the
// upgrade: frames in, callbacks on workers, frames out.
// All of that stays behind these methods, which the lifecycle calls on the
// loop only:
type protocol interface {
	// serve consumes the buffered input: parse, answer or dispatch. It may
	// set conn.paused (in-flight budget spent: the lifecycle stops reading
	// and calls serve again when resumed), and raise the connection's
	// close intent (conn.stopReading, conn.closeWhenDone).
	serve()
	// collect moves the responses that are complete, in sending order,
	// to conn.out (or the wire). Called at the start of a callback.
	collect()
	// collectSettled collects what a worker finished without waking the
	// loop, reporting whether there was anything (the sweep's look).
	collectSettled() bool
	// endCallback runs before the callback's output is written: give back
	// what a connection between requests need not hold.
	endCallback()
	// writable runs after the output is handed to gnet, and at every
	// sweep: a worker waiting for the write side may get it now.
	writable()
	// tick runs at every sweep, with the sweep's clock; output it leaves
	// in conn.out is written.
	tick(now int64)
	// queued: responses are still to be written.
	queued() bool
	// quiet: nothing of a request received and nothing in flight.
	quiet() bool
	// readTimeout answers a request whose bytes stopped arriving (in
	// conn.out) and reports true, or reports false when the connection
	// must close at once.
	readTimeout() bool
	// goAway runs before the server closes an idle connection (idle
	// timeout, drain): a protocol with a goodbye leaves it in conn.out.
	goAway()
	// close runs from OnClose: cancel the exchanges in flight (their
	// contexts end, their writes fail) and free what the loop owns.
	close()
}
