//go:build unix

package engine

import (
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"
)

// Giving memory back after a burst. What the engine holds for connections
// (gnet's input and output buffers, the loop's pending output) goes back
// to the Go heap when they drain or close; but a server that has gone
// quiet allocates nothing, so no collection runs to find it free (Go forces
// one only every two minutes), pooled buffers live on in their pools, and
// the runtime keeps the pages: after a flood of slow readers the process's
// RSS stayed at its peak for minutes. So every sweep adds up what the
// connections hold; when that falls to half of a peak of releaseHeld or
// more since the last release, or the open connections to half of a peak
// of releaseConns or more, the heap is collected twice (pools keep what
// they held through one collection) and its free pages are returned to the
// OS, on a goroutine of its own, at most once every releaseEvery in the
// process. One more release follows releaseEvery later if the load kept
// falling meanwhile (the last connections of a burst often close after
// the first release). Under a steady load nothing falls that far, and
// nothing is done.

const (
	// releaseHeld and releaseConns are the peaks worth a release: bytes
	// held for connections, and connections open (each holds its state,
	// and a handler waiting on it a goroutine, which the byte count does
	// not see). Memory is given back once the load falls to half of such
	// a peak.
	releaseHeld  = 32 << 20
	releaseConns = 512
	// releaseEvery spaces the releases (each costs two full collections).
	releaseEvery = 10 * time.Second
)

// lastRelease is when memory was last given back (unix ns), process-wide;
// releasing is set while a release runs.
var (
	lastRelease atomic.Int64
	releasing   atomic.Bool
)

// memWatch is a server's view of its load for the releases. The tick's
// only.
type memWatch struct {
	heldPeak, connsPeak int64 // since the last release
	// settling: a release was made at held, conns; one more is made if the
	// load falls below that within releaseEvery or later.
	settling    bool
	held, conns int64
}

// heldBytes is what c holds of its peer's data and its own output. Loop only.
func (c *conn) heldBytes() int64 {
	if c.closed {
		return 0
	}
	return int64(c.gc.InboundBuffered() + c.gc.OutboundBuffered() + len(c.out))
}

// noteHeld is the server's look at the loops' sums after a sweep. From the
// tick.
func (s *Server) noteHeld(now time.Time) {
	var held int64
	s.loopsMu.Lock()
	for _, ls := range s.loops {
		held += ls.held.Load()
	}
	s.loopsMu.Unlock()
	if s.mem.observe(held, s.conns.Load(), now) && releasing.CompareAndSwap(false, true) {
		lastRelease.Store(now.UnixNano())
		s.pipe.memReleases.Add(1)
		go func() {
			defer releasing.Store(false)
			runtime.GC()
			debug.FreeOSMemory()
		}()
	}
}

// observe takes the load at now and reports whether to release memory.
func (m *memWatch) observe(held, conns int64, now time.Time) bool {
	m.heldPeak = max(m.heldPeak, held)
	m.connsPeak = max(m.connsPeak, conns)
	if now.UnixNano()-lastRelease.Load() < int64(releaseEvery) {
		return false
	}
	fell := m.heldPeak >= releaseHeld && held <= m.heldPeak/2 || m.connsPeak >= releaseConns && conns <= m.connsPeak/2
	settle := m.settling && (held < m.held || conns < m.conns)
	m.settling = fell
	if !fell && !settle {
		return false
	}
	m.heldPeak, m.connsPeak, m.held, m.conns = held, conns, held, conns
	return true
}
