package gwist

import (
	"net"

	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/http2"
	"github.com/gwist/gwist/tlsstate"
)

// Stats is a snapshot of an App's counters.
type Stats struct {
	// Conns is the number of open connections over all listeners.
	Conns int64
	// MaxConns is the cap on open connections (WithMaxConns).
	MaxConns int
	// RefusedConns counts connections closed at once, unserved: beyond
	// MaxConns, or while descriptors ran out.
	RefusedConns uint64
	// AcceptErrors counts failed accepts (EMFILE, ENFILE, ENOBUFS, …).
	AcceptErrors uint64
	// Handlers is the number of handlers running on the worker pool and
	// counted in its bound (WithWorkers); Streams the number streaming a
	// response (Flush, SSE), which have left the bound.
	Handlers, Streams int
	// Feeds is the number of SSEFeed streams open (no goroutine each).
	Feeds int64
	// Queued is the number of batches of requests (those of one connection
	// read together; usually one request) waiting for a worker, and
	// Rejected counts the batches answered with 503 because the pool was
	// full (WithWorkers).
	Queued   int
	Rejected uint64
	// Listeners has each listener's open connections, in the order the
	// listeners were started.
	Listeners []ListenerStats
	// WebSockets is the number of WebSocket connections open (no
	// goroutine each).
	WebSockets int64
	// HTTP2Conns is the number of open connections speaking HTTP/2, and
	// HTTP2 counts their streams opened, reset by the client and by the
	// server, and the GOAWAYs sent by reason.
	HTTP2Conns int64
	HTTP2      http2.Stats
	// HTTP2Streams is the number of HTTP/2 streams in progress (request
	// received, response not yet written).
	HTTP2Streams int64
	// Backpressure sums what the read pause and the write timeout did:
	// the most unparsed input a paused connection held (PeakInbound, the
	// largest over the listeners), reads gnet let in while reading was
	// paused, connections closed over WithMaxInboundBytes, and connections
	// closed by WithWriteTimeout; and the most bytes a streamed response
	// had queued (PeakStreamQueued) and a streamed request body had
	// buffered for its handler (PeakBodyBuffered), each the largest over
	// the listeners.
	Backpressure BackpressureStats
	// Proxy counts what the ProxyProtocol listeners did with their
	// connections' headers: accepted with a client address, accepted
	// without one (LOCAL), and each reason for a close (Proxy.Errors() is
	// their sum).
	Proxy ProxyStats
	// ClientGoneErrors counts errors that handlers returned to
	// DefaultErrorHandler after their request's context was cancelled
	// (client gone or forced shutdown); their log lines are rate-limited.
	ClientGoneErrors uint64
	// TLS sums the TLS listeners' handshake counters and timings: full
	// and resumed handshakes, failures by reason, by version and by ALPN,
	// handshake time and the time from established to first response.
	TLS tlsstate.Stats
	// Reaches says which reaches past gnet's and crypto/tls's APIs are in
	// use (false: this system lacks it, or its self-test failed).
	Reaches ReachStats
}

// ListenerStats is one listener's share of Stats.
type ListenerStats struct {
	Addr net.Addr
	// TLS reports an HTTPS listener (StartTLS).
	TLS bool
	// Conns is the number of its open connections (a TLS one counts from
	// its accept, handshake included); HTTP2Conns those of them speaking
	// HTTP/2.
	Conns, HTTP2Conns int64
}

// Stats returns the App's counters.
func (a *App) Stats() Stats {
	a.mu.Lock()
	servers := append([]*engine.Server(nil), a.servers...)
	workers := a.workers
	a.mu.Unlock()
	var st Stats
	st.HTTP2.GoAwaySent = map[string]uint64{}
	st.ClientGoneErrors = a.goneErrs.count.Load()
	st.TLS = tlsstate.Stats{Failed: map[string]uint64{}, ConnErrors: map[string]uint64{},
		ByVersion: map[string]uint64{}, ByALPN: map[string]uint64{}}
	st.MaxConns = a.connLimit().Max()
	st.Reaches = reachStats()
	if workers != nil {
		st.Streams = workers.Streams()
		st.Handlers = workers.Running() - st.Streams
		st.Queued, st.Rejected = workers.Queued(), workers.Rejected()
	}
	st.Listeners = make([]ListenerStats, 0, len(servers))
	for _, s := range servers {
		ls := ListenerStats{Addr: s.Addr(), TLS: s.TLS() != nil, Conns: s.ActiveConns(), HTTP2Conns: s.HTTP2Conns()}
		st.Listeners = append(st.Listeners, ls)
		st.Conns += ls.Conns
		st.Feeds += s.DetachedResponses()
		st.WebSockets += s.WebSocketConns()
		st.HTTP2Conns += ls.HTTP2Conns
		st.HTTP2.Add(s.HTTP2Stats())
		st.HTTP2Streams += s.HTTP2Streams()
		st.RefusedConns += s.RefusedConns()
		st.AcceptErrors += s.AcceptErrors()
		st.Backpressure.add(BackpressureStats(s.PipeStats()))
		st.Proxy.add(ProxyStats(s.ProxyStats()))
		if ts := s.TLS(); ts != nil {
			addTLSStats(&st.TLS, ts.Stats())
		}
	}
	return st
}

func addTLSStats(dst *tlsstate.Stats, s tlsstate.Stats) {
	dst.Full += s.Full
	dst.Resumed += s.Resumed
	dst.Abandoned += s.Abandoned
	dst.InFlight += s.InFlight
	dst.Queued += s.Queued
	dst.Computing += s.Computing
	dst.SlowLookups += s.SlowLookups
	dst.SlowLookupsTotal += s.SlowLookupsTotal
	dst.HandshakeTime += s.HandshakeTime
	dst.HandshakeMax = max(dst.HandshakeMax, s.HandshakeMax)
	dst.Responses += s.Responses
	dst.ResponseDelay += s.ResponseDelay
	dst.ResponseMax = max(dst.ResponseMax, s.ResponseMax)
	dst.Phases.Add(s.Phases)
	for _, m := range [][2]map[string]uint64{{dst.Failed, s.Failed}, {dst.ConnErrors, s.ConnErrors},
		{dst.ByVersion, s.ByVersion}, {dst.ByALPN, s.ByALPN}} {
		for k, v := range m[1] {
			m[0][k] += v
		}
	}
}

// BackpressureStats counts what the engine's defences against clients that
// run ahead, stop reading or hold on did (Stats.Backpressure).
type BackpressureStats struct {
	// PeakInbound is the most unparsed input any connection held while its
	// parsing was paused (bounded by WithMaxInboundBytes).
	PeakInbound int64
	// ReadRearms counts reads gnet let in while a connection's reading
	// was paused (it re-arms reading when a connection's output drains);
	// each is at most one 64 KiB read. Reading held off only while gnet
	// held output is not counted: that re-arm is the one it waits for.
	ReadRearms uint64
	// InboundCapped counts connections closed for holding more than
	// WithMaxInboundBytes of unparsed input.
	InboundCapped uint64
	// WriteTimeouts counts connections (and HTTP/2 streams) closed because
	// their queued output did not move for WithWriteTimeout.
	WriteTimeouts uint64
	// PeakStreamQueued is the most bytes any streamed response had queued
	// and not yet taken by the socket, after a Write (bounded by
	// WithMaxStreamQueued plus that Write's framed bytes).
	PeakStreamQueued int64
	// PeakBodyBuffered is the most bytes of a streamed request body any
	// connection held, received and not yet read by the handler (bounded
	// by WithMaxBodyBuffered).
	PeakBodyBuffered int64
	// BodyReadTimeouts counts requests (HTTP/1 connections, HTTP/2
	// streams) answered 408 because their body stopped arriving for
	// WithBodyReadTimeout.
	BodyReadTimeouts uint64
	// ShareWaits counts HTTP/2 streams that waited because their
	// connection already had WithMaxConnHandlers handlers running.
	ShareWaits uint64
	// PingFloods counts WebSockets closed (1008) because they kept sending
	// pings without reading the pongs.
	PingFloods uint64
	// MemoryReleases counts the times memory was given back to the OS
	// after a burst (what the connections held, or their number, fell to
	// half of a large peak).
	MemoryReleases uint64
	// WSDirectWrites counts WebSocket messages written to the socket by
	// the goroutine that wrote them (a callback on a worker), without a
	// hand-off to the event loop; the others went through the loop.
	WSDirectWrites uint64
	// PeerHalfCloses counts HTTP/1 connections whose client shut its write
	// side (a half-close) while responses were with their handlers on
	// workers, and which were kept open to send them; the handlers'
	// contexts were cancelled, as for a client that left.
	PeerHalfCloses uint64
}

// add sums o into s (peaks: the larger).
func (s *BackpressureStats) add(o BackpressureStats) {
	s.PeakInbound = max(s.PeakInbound, o.PeakInbound)
	s.ReadRearms += o.ReadRearms
	s.InboundCapped += o.InboundCapped
	s.WriteTimeouts += o.WriteTimeouts
	s.PeakStreamQueued = max(s.PeakStreamQueued, o.PeakStreamQueued)
	s.PeakBodyBuffered = max(s.PeakBodyBuffered, o.PeakBodyBuffered)
	s.BodyReadTimeouts += o.BodyReadTimeouts
	s.ShareWaits += o.ShareWaits
	s.PingFloods += o.PingFloods
	s.MemoryReleases += o.MemoryReleases
	s.WSDirectWrites += o.WSDirectWrites
	s.PeerHalfCloses += o.PeerHalfCloses
}

// ProxyStats counts what the ProxyProtocol listeners did with their
// connections' headers (Stats.Proxy).
type ProxyStats struct {
	// Accepted: headers whose source address became the connection's.
	Accepted uint64
	// Local: valid headers without a client address (version 2 LOCAL, as
	// in a proxy's health checks; AF_UNSPEC; AF_UNIX; version 1 UNKNOWN):
	// the connection keeps its own address.
	Local uint64
	// Untrusted: connections from outside the trusted networks that began
	// with a PROXY signature.
	Untrusted uint64
	// Missing: connections from a trusted network that began with
	// something else than a PROXY signature.
	Missing uint64
	// Malformed: invalid headers (grammar, unsupported transport, over the
	// size limit).
	Malformed uint64
	// Checksum: version 2 headers whose CRC32C did not match.
	Checksum uint64
	// Truncated: connections closed by their peer in the middle of a header.
	Truncated uint64
	// Timeout: connections from a trusted network without a complete
	// header within the header timeout, and untrusted ones that stopped in
	// the middle of a signature.
	Timeout uint64
}

// Errors is the number of connections closed over their PROXY header.
func (s ProxyStats) Errors() uint64 {
	return s.Untrusted + s.Missing + s.Malformed + s.Checksum + s.Truncated + s.Timeout
}

// add sums o into s.
func (s *ProxyStats) add(o ProxyStats) {
	s.Accepted += o.Accepted
	s.Local += o.Local
	s.Untrusted += o.Untrusted
	s.Missing += o.Missing
	s.Malformed += o.Malformed
	s.Checksum += o.Checksum
	s.Truncated += o.Truncated
	s.Timeout += o.Timeout
}
