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
// connections hold, and when that falls by releaseDrop below its peak
// since the last release, the heap is collected twice (pools keep what they
// held through one collection) and its free pages are returned to the OS,
// on a goroutine of its own, at most once every releaseEvery in the process.
// Under a steady load the held total does not fall that far, and nothing is
// done.

const (
	// releaseDrop is how far the bytes held for connections must fall
	// below their peak before memory is given back.
	releaseDrop = 64 << 20
	// releaseEvery spaces the releases (each costs two full collections).
	releaseEvery = 10 * time.Second
)

// lastRelease is when memory was last given back (unix ns), process-wide;
// releasing is set while a release runs.
var (
	lastRelease atomic.Int64
	releasing   atomic.Bool
)

// heldBytes is what c holds of its peer's data and its own output. Loop only.
func (c *conn) heldBytes() int64 {
	if c.closed {
		return 0
	}
	return int64(c.gc.InboundBuffered() + c.gc.OutboundBuffered() + len(c.out))
}

// noteHeld is the server's look at the loops' sums after a sweep: it keeps
// the peak and starts a release past releaseDrop below it. From the tick.
func (s *Server) noteHeld(now time.Time) {
	var held int64
	s.loopsMu.Lock()
	for _, ls := range s.loops {
		held += ls.held.Load()
	}
	s.loopsMu.Unlock()
	if held > s.heldPeak {
		s.heldPeak = held
	}
	if s.heldPeak-held < releaseDrop || now.UnixNano()-lastRelease.Load() < int64(releaseEvery) {
		return
	}
	s.heldPeak = held
	if !releasing.CompareAndSwap(false, true) {
		return
	}
	lastRelease.Store(now.UnixNano())
	s.pipe.memReleases.Add(1)
	go func() {
		defer releasing.Store(false)
		runtime.GC()
		debug.FreeOSMemory()
	}()
}
