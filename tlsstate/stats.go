package tlsstate

import (
	"crypto/tls"
	"sync"
	"sync/atomic"
	"time"
)

// Stats is a snapshot of a Server's counters, for App.Stats.
type Stats struct {
	// Full and Resumed count handshakes that completed.
	Full, Resumed uint64
	// Failed counts connections that failed before being established, by
	// Reason name ("timeout", "not_tls", "bad_record", "alert",
	// "handshake_error", "client_gone", "limiter_refused", "overflow",
	// "aborted", "evicted", "lookup_refused"). Every name is present, zero
	// or not.
	Failed map[string]uint64
	// ConnErrors counts established connections that failed later, by
	// Reason name (mostly "bad_record" and "alert").
	ConnErrors map[string]uint64
	// Abandoned counts connections released before sending any byte
	// (port scans, health checks).
	Abandoned uint64
	// ByVersion counts completed handshakes by tls.VersionName.
	ByVersion map[string]uint64
	// ByALPN counts completed handshakes by negotiated protocol; "" means
	// none was negotiated.
	ByALPN map[string]uint64
	// InFlight is the number of handshake goroutines, Computing those of
	// them holding a limiter slot (the rest wait for their client), Queued
	// the number of connections waiting for a goroutine.
	InFlight, Computing, Queued int
	// SlowLookups is the number of handshake goroutines inside a slow
	// certificate lookup (one that ran past Config.SlowLookup; they hold
	// no slot), and SlowLookupsTotal counts the lookups that became slow.
	SlowLookups      int
	SlowLookupsTotal uint64
	// HandshakeTime sums, over completed handshakes, the time from the
	// first ciphertext byte to established; HandshakeMax is the largest.
	HandshakeTime, HandshakeMax time.Duration
	// Responses counts Conn.MarkFirstResponse calls on established
	// connections; ResponseDelay sums the time from established to the
	// first response, ResponseMax is the largest.
	Responses                  uint64
	ResponseDelay, ResponseMax time.Duration
	// Phases holds the completed handshakes' timings, and the response
	// delays, as histograms.
	Phases Phases
}

// Phases are histograms of the moments of Timings, over completed
// handshakes: Handshake from the first ciphertext byte to established
// (Timings.Handshake), split into Hello (first byte to a complete
// ClientHello), Queue (the complete ClientHello waiting for a handshake
// goroutine: Timings.QueueWait) and Run (the goroutine's work, the client's
// round trips included); and Response, from established to the first
// response written (Timings.ResponseDelay).
type Phases struct {
	Handshake, Hello, Queue, Run, Response Histogram
}

// Add adds o into p.
func (p *Phases) Add(o Phases) {
	p.Handshake.Add(o.Handshake)
	p.Hello.Add(o.Hello)
	p.Queue.Add(o.Queue)
	p.Run.Add(o.Run)
	p.Response.Add(o.Response)
}

// counters is the live, concurrently updated form of Stats.
type counters struct {
	full, resumed, abandoned atomic.Uint64
	failed, connErr          [numReasons]atomic.Uint64
	hsTotal, hsMax           atomic.Int64
	responses, slowLookups   atomic.Uint64
	respTotal, respMax       atomic.Int64
	hsHist, helloHist        histogram
	queueHist, runHist       histogram
	respHist                 histogram

	mu        sync.Mutex
	byVersion map[uint16]uint64
	byALPN    map[string]uint64
}

func (k *counters) init() {
	k.byVersion = make(map[uint16]uint64)
	k.byALPN = make(map[string]uint64)
}

// established counts a completed handshake; t holds its moments (the
// established one included).
func (k *counters) established(cs *tls.ConnectionState, t *stamps) {
	d := since(t.at(t.firstByte), t.at(t.established))
	k.hsHist.observe(d)
	k.helloHist.observe(since(t.at(t.firstByte), t.at(t.hello)))
	k.queueHist.observe(since(t.at(t.hello), t.at(t.started)))
	k.runHist.observe(since(t.at(t.started), t.at(t.established)))
	if cs.DidResume {
		k.resumed.Add(1)
	} else {
		k.full.Add(1)
	}
	k.hsTotal.Add(int64(d))
	storeMax(&k.hsMax, int64(d))
	k.mu.Lock()
	k.byVersion[cs.Version]++
	k.byALPN[cs.NegotiatedProtocol]++
	k.mu.Unlock()
}

func (k *counters) response(d time.Duration) {
	k.responses.Add(1)
	k.respHist.observe(d)
	k.respTotal.Add(int64(d))
	storeMax(&k.respMax, int64(d))
}

func storeMax(m *atomic.Int64, v int64) {
	for {
		old := m.Load()
		if v <= old || m.CompareAndSwap(old, v) {
			return
		}
	}
}

// Stats returns a snapshot of the server's counters.
func (s *Server) Stats() Stats {
	k := &s.stats
	st := Stats{
		Full:             k.full.Load(),
		Resumed:          k.resumed.Load(),
		Abandoned:        k.abandoned.Load(),
		Failed:           make(map[string]uint64, numReasons-1),
		ConnErrors:       make(map[string]uint64, numReasons-1),
		HandshakeTime:    time.Duration(k.hsTotal.Load()),
		HandshakeMax:     time.Duration(k.hsMax.Load()),
		Responses:        k.responses.Load(),
		SlowLookups:      int(s.slow.Load()),
		SlowLookupsTotal: k.slowLookups.Load(),
		ResponseDelay:    time.Duration(k.respTotal.Load()),
		ResponseMax:      time.Duration(k.respMax.Load()),
		Phases: Phases{Handshake: k.hsHist.snapshot(), Hello: k.helloHist.snapshot(),
			Queue: k.queueHist.snapshot(), Run: k.runHist.snapshot(), Response: k.respHist.snapshot()},
	}
	for r := ReasonNone + 1; r < numReasons; r++ {
		st.Failed[r.String()] = k.failed[r].Load()
		st.ConnErrors[r.String()] = k.connErr[r].Load()
	}
	k.mu.Lock()
	st.ByVersion = make(map[string]uint64, len(k.byVersion))
	for v, n := range k.byVersion {
		st.ByVersion[tls.VersionName(v)] = n
	}
	st.ByALPN = make(map[string]uint64, len(k.byALPN))
	for p, n := range k.byALPN {
		st.ByALPN[p] = n
	}
	k.mu.Unlock()
	s.mu.Lock()
	st.InFlight, st.Computing, st.Queued = s.alive, s.computing, s.queue.Len()
	s.mu.Unlock()
	return st
}
