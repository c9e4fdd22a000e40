//go:build unix

package engine

import (
	"log/slog"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/panjf2000/gnet/v2"

	"github.com/gwist/gwist/tlsstate"
)

// The engine's reaches past gnet's public API, all in the gnetreach*.go
// files, each verified against gnet v2.9.7 (and Go 1.26.8) by reading its
// source, and each checked once per process by a self-test that turns it
// off, with one log line, when the gnet it runs on behaves otherwise:
//
//   - The read pause (gnetreach_epoll.go, Linux): gnet's epoll descriptor
//     is found by reflection and EPOLLIN is taken out of a connection's
//     registration in it. Off: MaxInboundBytes alone bounds a client that
//     runs ahead (readpause.go).
//   - Worker writes (gnetreach_fd.go): workers write responses to the
//     connection's fd themselves, behind gnet's back (direct batches,
//     streamed HTTP/1 responses, sendfile, TLS handshake flights). Off:
//     the loop writes everything through gnet (outbound_loop.go for
//     streams; the other three have a loop path already).
//   - Raw accept (gnetreach_accept_linux.go, Linux): accepted sockets are
//     registered on gnet's loops through two of gnet's unexported
//     functions (go:linkname; on only with the verified gnet version).
//     Off: they enter gnet through Client.EnrollContext.
//
// The self-tests run in the first NewServer of the process (so that
// Config's defaults see their outcome), on a probe connection of a gnet
// client of their own (gnetreach_probe.go). Until then, and when they
// pass, the reaches are on. Turning one off costs no check on the request
// path beyond the atomic load that gates it.
//
// crypto/tls has one reach of its own, tlsstate's buffer trim
// (tlsstate/tlsreach.go), with its own self-test; the engine logs its
// outcome and reports it in Reaches.

// The versions the reaches were verified against (README: Verified
// dependency versions). TestVerifiedVersions fails when the build uses
// others, so that an upgrade is re-verified rather than trusted.
const (
	gnetModule   = "github.com/panjf2000/gnet/v2"
	verifiedGnet = "v2.9.7"
	verifiedGo   = "go1.26.8"
)

// reach is one reach past a dependency's API: on until its self-test
// fails.
type reach struct {
	name     string // in the log line
	fallback string // what the engine does instead
	off      atomic.Bool
	mu       sync.Mutex
	why      string // why it is off; under mu
}

// on reports whether the reach is in use. Cheap: one atomic load.
func (r *reach) on() bool { return !r.off.Load() }

// turnOff turns r off for the rest of the process.
func (r *reach) turnOff(why string) {
	r.mu.Lock()
	r.why = why
	r.mu.Unlock()
	r.off.Store(true)
}

func (r *reach) reason() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.why
}

var (
	readPauseReach = reach{name: "gnet epoll read pause", fallback: "MaxInboundBytes alone bounds a client that runs ahead"}
	fdWriteReach   = reach{name: "worker writes to gnet's fds", fallback: "the event loop writes every response through gnet"}
	rawAcceptReach = reach{name: "raw accept onto gnet's loops", fallback: "accepted connections enter gnet through Client.EnrollContext"}
)

// Reaches reports which of the reaches past gnet's and crypto/tls's public
// APIs are in use in this process (README: Verified dependency versions).
// A reach is off when this system lacks it or its start-up self-test
// failed (then one warning was logged).
type Reaches struct {
	// ReadPause: reading from a connection that runs ahead is paused in
	// gnet's epoll set (Linux). Off: MaxInboundBytes alone bounds it.
	ReadPause bool
	// WorkerWrites: workers write responses to gnet's connection fds
	// themselves. Off: the event loop writes every response.
	WorkerWrites bool
	// TLSBufferTrim: crypto/tls's read buffers are released when a
	// connection goes idle and looked at to skip reads that would block.
	// Off: they are kept, and each record costs an extra allocation.
	TLSBufferTrim bool
	// RawAccept: accepted sockets are registered on gnet's loops
	// directly (Linux). Off: they enter gnet through EnrollContext, at
	// a dup, Go's netpoll registration and a wait for the loop each.
	RawAccept bool
}

// CurrentReaches reports the reaches in use.
func CurrentReaches() Reaches {
	pause, _ := readPauseSupported()
	trim, _ := tlsstate.BufferReach()
	return Reaches{ReadPause: pause, WorkerWrites: fdWriteReach.on(), TLSBufferTrim: trim, RawAccept: rawAcceptSupported()}
}

var (
	gnetSelfTest sync.Once
	tlsSelfTest  sync.Once
)

// checkReaches runs the gnet self-tests once per process and, the first
// time a TLS server is configured, reports tlsstate's; each reach found
// broken is logged once, on l.
func checkReaches(l *slog.Logger, tls *tlsstate.Server) {
	gnetSelfTest.Do(func() { applyProbe(l, probeGnet(l, probeHooks{})) })
	if tls == nil {
		return
	}
	tlsSelfTest.Do(func() {
		if ok, why := tlsstate.BufferReach(); !ok {
			logReachOff(l, "crypto/tls read buffer trim", "crypto/tls of "+runtime.Version(), verifiedGo, why,
				"crypto/tls keeps its read buffers")
		}
	})
}

// applyProbe turns off, and logs, each gnet reach the probe found broken.
func applyProbe(l *slog.Logger, p probeResult) {
	for _, f := range []struct {
		r   *reach
		why string
	}{{&readPauseReach, p.readPause}, {&fdWriteReach, p.fdWrites}, {&rawAcceptReach, p.rawAccept}} {
		if f.why != "" {
			f.r.turnOff(f.why)
			logReachOff(l, f.r.name, gnetModule+" "+gnetVersion(), verifiedGnet, f.why, f.r.fallback)
		}
	}
}

// logReachOff is the one line a failed self-test logs.
func logReachOff(l *slog.Logger, name, dep, verified, why, fallback string) {
	l.Warn("gwist: a dependency does not behave as verified; a reach past its API is off",
		"reach", name, "dependency", dep, "verified", verified, "why", why, "instead", fallback)
}

// gnetVersion is the gnet version this binary was built with: from the
// build information, else from the path of gnet's source files (which
// carries module@version, also with -trimpath; not when vendored).
func gnetVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == gnetModule {
				if d.Replace != nil {
					return d.Version + " => " + d.Replace.Path + " " + d.Replace.Version
				}
				return d.Version
			}
		}
	}
	fn := runtime.FuncForPC(reflect.ValueOf(gnet.NewClient).Pointer())
	if fn != nil {
		file, _ := fn.FileLine(fn.Entry())
		if _, after, ok := strings.Cut(file, gnetModule+"@"); ok {
			if v, _, ok := strings.Cut(after, "/"); ok {
				return v
			}
		}
	}
	return "(version unknown)"
}
