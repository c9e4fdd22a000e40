//go:build unix

package engine

import (
	"log/slog"
	"runtime"
	"time"

	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/http2"
	"github.com/gwist/gwist/tlsstate"
)

// Defaults for Config fields left at zero.
const (
	DefaultHeaderReadTimeout = 10 * time.Second
	DefaultBodyReadTimeout   = 30 * time.Second
	DefaultIdleTimeout       = 60 * time.Second
	DefaultMaxPipelined      = 64
	DefaultMaxOutboundBytes  = 4 << 20
	DefaultWorkers           = 1024
	// DefaultStreamThreshold and DefaultMaxStreamQueued: see the Config
	// fields of the same names.
	DefaultStreamThreshold = 32 << 10
	DefaultMaxStreamQueued = 256 << 10
	// DefaultMaxBodyBuffered: see Config.MaxBodyBuffered.
	DefaultMaxBodyBuffered = 128 << 10
	// DefaultWriteTimeout: see Config.WriteTimeout.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultMaxInboundBytes is Config.MaxInboundBytes's default where the
	// read pause works (Linux): one 64 KiB read plus a few that gnet lets
	// in when output drains. DefaultMaxInboundBytesNoPause is the default
	// elsewhere, where a client that runs ahead fills the buffer.
	DefaultMaxInboundBytes        = 1 << 20
	DefaultMaxInboundBytesNoPause = 4 << 20
	// lingerTimeout bounds how long a connection that is being closed after
	// its last response keeps draining input, so that an unread request
	// cannot turn the close into a reset that destroys the response.
	lingerTimeout = 500 * time.Millisecond
	tickInterval  = 250 * time.Millisecond
)

// Config is the engine's configuration. The zero value of every field means
// its documented default.
type Config struct {
	// Inline runs handlers on the event loop instead of the worker pool. Only
	// for handlers that never block.
	Inline bool
	// Loops is the number of event loops. The default is GOMAXPROCS when
	// Inline, where the loops do all the work, and half of it (at least one)
	// with workers, which need the other Ps for handlers: a loop waiting in
	// epoll_wait holds its P in a system call, and with every P held that
	// way the runtime keeps taking Ps back and waking threads to run the
	// workers (on 2 cores, 2 loops cost 2.4× the context switches per
	// request of 1 loop and 10% of plaintext throughput). The loops are
	// the Group's: the first of its servers to start sets their number.
	Loops int
	// Limits bounds request parsing (see http1.Limits for defaults).
	Limits http1.Limits
	// HeaderReadTimeout bounds the time from the first byte of a request to
	// the end of its head (default 10 s). On expiry the client gets 408 and
	// the connection is closed.
	HeaderReadTimeout time.Duration
	// BodyReadTimeout bounds the time from the end of a head to the end of its
	// body (default 30 s); 408 and close on expiry.
	BodyReadTimeout time.Duration
	// IdleTimeout closes keep-alive connections with nothing in flight after
	// this long (default 60 s).
	IdleTimeout time.Duration
	// MaxPipelined is the number of requests of one connection that may be in
	// flight at once (default 64). Beyond it the engine stops parsing that
	// connection's input until responses drain.
	MaxPipelined int
	// MaxInboundBytes caps the unparsed input buffered for a connection while
	// parsing is paused. On Linux the engine stops reading from such a
	// connection (TCP flow control then slows the client), so only gnet's
	// re-arms add to it, 64 KiB at a time; the default is
	// DefaultMaxInboundBytes (1 MiB). Without the read pause (other systems)
	// input keeps arriving and the default is DefaultMaxInboundBytesNoPause
	// (4 MiB). A connection over the cap gets the responses already in
	// flight, then is closed.
	MaxInboundBytes int
	// MaxConnHandlers caps the handlers of one connection that run on the
	// worker pool at once (default: a sixteenth of the pool, at least 4),
	// so that a few connections cannot take the whole pool. It bounds
	// HTTP/2, whose connections carry many requests at once: a stream
	// beyond it waits for one of the connection's handlers to return.
	// (HTTP/1 is bounded by MaxPipelined, and a WebSocket's callbacks run
	// one at a time.)
	MaxConnHandlers int
	// MaxOutboundBytes pauses parsing while more than this many response
	// bytes wait to be sent on a connection (default 4 MiB).
	MaxOutboundBytes int
	// WriteTimeout closes a connection whose queued response bytes have not
	// moved for this long (default 30 s, like BodyReadTimeout: the client has
	// stopped reading). Any progress restarts it, so a slow reader is not
	// cut. Until then a connection holds at most the responses of
	// MaxPipelined requests on top of MaxOutboundBytes.
	WriteTimeout time.Duration
	// StreamThreshold: a handler on a worker whose Writes buffer more than
	// this many body bytes starts streaming (its head goes out, the body
	// follows as written), as if it had called Flush (default 32 KiB).
	StreamThreshold int
	// MaxStreamQueued bounds the bytes of a streamed response queued and not
	// yet taken by the socket (one response streams at a time on an HTTP/1
	// connection, so this is per connection). Beyond it the handler's Write
	// blocks on its worker until the client reads (default 256 KiB).
	MaxStreamQueued int
	// StreamBody, when set, is asked on the event loop at the end of every
	// request head that has a body (so it must be quick and must not
	// block): ok means the body streams to the handler as it arrives
	// (Exchange.ReadBody), with at most max bytes (0: no limit) instead of
	// Limits.MaxBodyBytes. Such a request always runs on the worker pool,
	// Inline or not (Workers is then required). See inbody.go.
	StreamBody func(req *http1.Request) (max int64, ok bool)
	// MaxBodyBuffered bounds the bytes of a streamed request body received
	// and not yet read by its handler (one body streams at a time on an
	// HTTP/1 connection, so this is per connection). When it is reached the
	// engine stops reading the connection until the handler reads (default
	// 128 KiB).
	MaxBodyBuffered int
	// HTTP2 turns HTTP/2 on TLS connections on: h2 when ALPN chose it
	// (the TLS listener offers it).
	HTTP2 bool
	// H2C turns HTTP/2 on plaintext connections on: by prior knowledge (a
	// connection that opens with the client preface) and by
	// "Upgrade: h2c".
	H2C bool
	// ReusePort sets SO_REUSEPORT on the listener (off by default: a
	// second server on the same address fails to bind).
	ReusePort bool
	// ProxyProtocol, when set, makes the listener read the PROXY protocol
	// from the trusted networks it names (proxy.go).
	ProxyProtocol *ProxyProtocol
	// H2 holds the HTTP/2 connections' limits (zero fields: the http2
	// package's defaults).
	H2 http2.Config
	// ServerName is the Server header value; empty sends none.
	ServerName string
	// Logger receives handler panics and engine errors (default slog.Default()).
	Logger *slog.Logger
	// Rejected, when set, answers a request the worker pool had no room
	// for (rejected.go). It runs on the event loop, so it must be quick
	// and must not block. Nil sends the engine's plain-text 503.
	Rejected Handler
	// TLS, when set, makes this an HTTPS server: connections run through
	// this TLS state machine.
	TLS *tlsstate.Server
	// DisableQuickAck turns off the TCP_QUICKACK re-arm during TLS
	// handshakes (for A/B measurements; on by default).
	DisableQuickAck bool
	// Workers runs handlers when Inline is false. Required then; several
	// servers may share one.
	Workers *Workers
	// Conns caps the connections open at once; several servers may share
	// one. Nil means a limit of DefaultMaxConns() for this server alone.
	Conns *ConnLimit
	// Group is the set of event loops the server's connections run on, to
	// share them with other servers (an App's listeners); nil: loops of its
	// own.
	Group *LoopGroup
}

func (c *Config) withDefaults() Config {
	d := *c
	if d.Loops <= 0 {
		d.Loops = defaultLoops(d.Inline, runtime.GOMAXPROCS(0))
	}
	if d.HeaderReadTimeout <= 0 {
		d.HeaderReadTimeout = DefaultHeaderReadTimeout
	}
	if d.BodyReadTimeout <= 0 {
		d.BodyReadTimeout = DefaultBodyReadTimeout
	}
	if d.IdleTimeout <= 0 {
		d.IdleTimeout = DefaultIdleTimeout
	}
	if d.MaxPipelined <= 0 {
		d.MaxPipelined = DefaultMaxPipelined
	}
	if d.Limits.MaxHeaderBytes <= 0 {
		d.Limits.MaxHeaderBytes = http1.DefaultMaxHeaderBytes
	}
	if d.MaxInboundBytes <= 0 {
		d.MaxInboundBytes = DefaultMaxInboundBytesNoPause
		if ok, _ := readPauseSupported(); ok {
			d.MaxInboundBytes = DefaultMaxInboundBytes
		}
		// Room for a whole request head and one read beyond it.
		d.MaxInboundBytes = max(d.MaxInboundBytes, 2*d.Limits.MaxHeaderBytes+64<<10)
	}
	if d.WriteTimeout <= 0 {
		d.WriteTimeout = DefaultWriteTimeout
	}
	if d.MaxOutboundBytes <= 0 {
		d.MaxOutboundBytes = DefaultMaxOutboundBytes
	}
	if d.StreamThreshold <= 0 {
		d.StreamThreshold = DefaultStreamThreshold
	}
	if d.MaxStreamQueued <= 0 {
		d.MaxStreamQueued = DefaultMaxStreamQueued
	}
	if d.MaxBodyBuffered <= 0 {
		d.MaxBodyBuffered = DefaultMaxBodyBuffered
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.MaxConnHandlers <= 0 {
		d.MaxConnHandlers = defaultMaxConnHandlers(d.Workers)
	}
	return d
}

// defaultMaxConnHandlers is Config.MaxConnHandlers's default for a pool:
// a sixteenth of its size, at least 4.
func defaultMaxConnHandlers(w *Workers) int {
	size := DefaultWorkers
	if w != nil {
		size = w.Cap()
	}
	return max(4, size/16)
}

func defaultLoops(inline bool, procs int) int {
	if inline {
		return procs
	}
	return max(1, procs/2)
}
