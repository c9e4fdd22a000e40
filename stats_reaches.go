package gwist

import "github.com/gwist/gwist/engine"

// ReachStats says which of gwist's reaches past its dependencies' public
// APIs are in use in this process (README: Verified dependency versions).
// Each is checked by a self-test when the first server is made; one found
// broken is turned off (with one warning logged) and gwist does without
// it.
type ReachStats struct {
	// ReadPause: reading from a client that runs ahead is paused in
	// gnet's epoll set (Linux only). Off: WithMaxInboundBytes alone bounds
	// it.
	ReadPause bool
	// WorkerWrites: handlers' goroutines write responses to the socket
	// themselves. Off: the event loop writes every response.
	WorkerWrites bool
	// TLSBufferTrim: crypto/tls's read buffers are released when an HTTPS
	// connection goes idle. Off: they are kept (about 6 KB per idle
	// connection), and each record costs an allocation more.
	TLSBufferTrim bool
	// WebSocketRoutes: the handlers WebSocket returns are recognised, so
	// RFC 8441 is advertised over HTTP/2 only by an App with such a route.
	// Off: it is advertised whenever HTTP/2 is on.
	WebSocketRoutes bool
	// RawAccept: accepted connections are registered on gnet's event
	// loops directly (Linux). Off: each enters gnet through its public
	// API, at a dup of the socket and a wait for the loop.
	RawAccept bool
}

func reachStats() ReachStats {
	r := engine.CurrentReaches()
	return ReachStats{ReadPause: r.ReadPause, WorkerWrites: r.WorkerWrites,
		TLSBufferTrim: r.TLSBufferTrim, WebSocketRoutes: wsRouteMarkWorks(), RawAccept: r.RawAccept}
}
