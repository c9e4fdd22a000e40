//go:build unix

package engine

import "sync/atomic"

// pipeStats counts what the read pause and the write timeout did on one
// Server.
type pipeStats struct {
	peakInbound   atomic.Int64  // most unparsed input a paused connection held
	readRearms    atomic.Uint64 // reads gnet let in while a connection was paused
	inboundCapped atomic.Uint64 // connections closed over MaxInboundBytes
	writeTimeouts atomic.Uint64 // connections closed by WriteTimeout
	peakStream    atomic.Int64  // most bytes a streamed response had queued
	peakBody      atomic.Int64  // most bytes of a streamed request body buffered
	bodyTimeouts  atomic.Uint64 // requests answered 408 by BodyReadTimeout (HTTP/1 and HTTP/2)
	shareWaits    atomic.Uint64 // HTTP/2 streams that waited for their connection's share of the pool
	pingFloods    atomic.Uint64 // WebSockets closed for pings they did not read the pongs of
	memReleases   atomic.Uint64 // memory given back after a burst (memrelease.go)
	wsDirect      atomic.Uint64 // WebSocket frames a writer wrote to the socket itself (wsdirect.go)
	// peerHalfCloses: connections kept past a client's half-close for the
	// responses in flight (peerdone_linux.go)
	peerHalfCloses atomic.Uint64
}

func (p *pipeStats) noteBodyBuffered(n int) {
	for {
		old := p.peakBody.Load()
		if int64(n) <= old || p.peakBody.CompareAndSwap(old, int64(n)) {
			return
		}
	}
}

func (p *pipeStats) noteStreamQueued(n int) {
	for {
		old := p.peakStream.Load()
		if int64(n) <= old || p.peakStream.CompareAndSwap(old, int64(n)) {
			return
		}
	}
}

func (p *pipeStats) notePeak(n int) {
	for {
		old := p.peakInbound.Load()
		if int64(n) <= old || p.peakInbound.CompareAndSwap(old, int64(n)) {
			return
		}
	}
}

// PipeStats reports what the engine's defences against clients that run
// ahead or stop reading have done on a Server.
type PipeStats struct {
	// PeakInbound is the most unparsed input any connection held while its
	// parsing was paused (bounded by Config.MaxInboundBytes).
	PeakInbound int64
	// ReadRearms counts reads gnet let in while a connection's reading
	// was paused (it re-arms reading when a connection's output drains);
	// each is at most one 64 KiB read. Reading held off only while gnet
	// held output is not counted: that re-arm is the one it waits for.
	ReadRearms uint64
	// InboundCapped counts connections closed for holding more than
	// MaxInboundBytes of unparsed input.
	InboundCapped uint64
	// WriteTimeouts counts connections closed because their queued output
	// did not move for WriteTimeout.
	WriteTimeouts uint64
	// PeakStreamQueued is the most bytes any streamed response had queued
	// and not yet taken by the socket, after a Write (bounded by
	// Config.MaxStreamQueued plus that Write's framed bytes).
	PeakStreamQueued int64
	// PeakBodyBuffered is the most bytes of a streamed request body any
	// connection held, received and not yet read by the handler (bounded
	// by Config.MaxBodyBuffered).
	PeakBodyBuffered int64
	// BodyReadTimeouts counts requests (HTTP/1 connections, HTTP/2
	// streams) answered 408 because their body stopped arriving for
	// Config.BodyReadTimeout.
	BodyReadTimeouts uint64
	// ShareWaits counts HTTP/2 streams that waited because their
	// connection already had Config.MaxConnHandlers handlers running.
	ShareWaits uint64
	// PingFloods counts WebSockets closed (1008) because they kept sending
	// pings without reading the pongs (wsflood.go).
	PingFloods uint64
	// MemoryReleases counts the times memory was given back to the OS
	// after a burst (what the connections held, or their number, fell to
	// half of a large peak: memrelease.go).
	MemoryReleases uint64
	// WSDirectWrites counts WebSocket messages their writer wrote to the
	// socket itself while a worker ran the connection's callbacks, without
	// a hand-off to the loop (wsdirect.go).
	WSDirectWrites uint64
	// PeerHalfCloses counts HTTP/1 connections whose client shut its write
	// side while responses were with their handlers on workers, and which
	// were kept open to send them (peerdone_linux.go).
	PeerHalfCloses uint64
}

// PipeStats returns the server's read-pause and write-timeout counters.
func (s *Server) PipeStats() PipeStats {
	return PipeStats{
		PeakInbound:   s.pipe.peakInbound.Load(),
		ReadRearms:    s.pipe.readRearms.Load(),
		InboundCapped: s.pipe.inboundCapped.Load(),
		WriteTimeouts: s.pipe.writeTimeouts.Load(),

		PeakStreamQueued: s.pipe.peakStream.Load(),
		PeakBodyBuffered: s.pipe.peakBody.Load(),
		BodyReadTimeouts: s.pipe.bodyTimeouts.Load(),
		ShareWaits:       s.pipe.shareWaits.Load(),
		PingFloods:       s.pipe.pingFloods.Load(),
		MemoryReleases:   s.pipe.memReleases.Load(),
		WSDirectWrites:   s.pipe.wsDirect.Load(),
		PeerHalfCloses:   s.pipe.peerHalfCloses.Load(),
	}
}

// ReadPauseSupported reports whether this build can stop reading from a
// connection that runs ahead (Linux, with gnet's layout as expected), and
// if not, why.
func ReadPauseSupported() (bool, string) { return readPauseSupported() }
