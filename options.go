package gwist

import (
	"log/slog"
	"time"

	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/tlsstate"
)

// Option configures an App; pass options to New.
type Option func(*config)

type config struct {
	engine                engine.Config
	workers               int
	maxConns              int
	redirectTrailingSlash bool
	errorHandler          ErrorHandler
	tls                   tlsstate.Config
	sseHeartbeat          time.Duration
	maxInlineFile         int64 // WithMaxInlineFileBytes (file.go)
	drainDelay            time.Duration
	errs                  []error   // values the options refused (options_check.go)
	validator             Validator // WithValidator (validate.go)
	renderer              Renderer  // WithRenderer, WithTemplates (render.go)
}

func defaultConfig() config {
	c := config{redirectTrailingSlash: true}
	c.engine.HTTP2 = true // h2 on TLS listeners; h2c only with WithHTTP2(true)
	return c
}

// WithInline runs handlers on the event loop instead of the worker pool.
// Faster for handlers that never block; a blocking handler stalls every
// connection of its loop. Default false.
func WithInline(on bool) Option { return func(c *config) { c.engine.Inline = on } }

// WithWorkers sets how many handlers may run at once on the worker pool
// (default 1024). When all are busy, new requests get 503 with Retry-After.
func WithWorkers(n int) Option {
	return func(c *config) {
		if c.count("WithWorkers", int64(n), "1024") {
			c.workers = n
		}
	}
}

// WithMaxConns caps the connections open at once over all of the App's
// listeners. A connection accepted beyond it is not served: a plaintext
// one whose request line arrives within a second is answered 503 with
// Retry-After and closed (a few at once), any other is closed at once with
// a reset (the client sees "connection reset"); the open ones are served
// as usual. The default is derived from the process's descriptor limit
// (RLIMIT_NOFILE less an eighth, keeping at least 64 descriptors free), so
// that accept rarely meets EMFILE; when it does anyway (files or outbound
// connections of the application's own), the listener survives it.
func WithMaxConns(n int) Option {
	return func(c *config) {
		if c.count("WithMaxConns", int64(n), "from the descriptor limit") {
			c.maxConns = n
		}
	}
}

// WithLoops sets the number of event loops (default: GOMAXPROCS with
// WithInline, half of it, at least one, with the worker pool). The App's
// listeners share them.
func WithLoops(n int) Option {
	return func(c *config) {
		if c.count("WithLoops", int64(n), "from GOMAXPROCS") {
			c.engine.Loops = n
		}
	}
}

// WithMaxHeaderBytes bounds the request line plus headers (default 16 KiB;
// 431 when exceeded).
func WithMaxHeaderBytes(n int) Option {
	return func(c *config) {
		if c.count("WithMaxHeaderBytes", int64(n), "16 KiB") {
			c.engine.Limits.MaxHeaderBytes = n
		}
	}
}

// WithMaxTargetBytes bounds the request target (default 8 KiB; 414).
func WithMaxTargetBytes(n int) Option {
	return func(c *config) {
		if c.count("WithMaxTargetBytes", int64(n), "8 KiB") {
			c.engine.Limits.MaxTargetBytes = n
		}
	}
}

// WithMaxHeaderCount bounds the number of header fields (default 128; 431).
func WithMaxHeaderCount(n int) Option {
	return func(c *config) {
		if c.count("WithMaxHeaderCount", int64(n), "128") {
			c.engine.Limits.MaxHeaderCount = n
		}
	}
}

// WithMaxBodyBytes bounds a request body (default 8 MiB; 413, sent before
// the body is read when Content-Length declares more).
func WithMaxBodyBytes(n int64) Option {
	return func(c *config) {
		if c.count("WithMaxBodyBytes", int64(n), "8 MiB") {
			c.engine.Limits.MaxBodyBytes = n
		}
	}
}

// WithMaxBodyBuffered bounds the bytes of a streamed request body
// (Group.StreamBody) received and not yet read by its handler, per
// connection (default 128 KiB). When it is reached the engine stops reading
// from the connection until the handler reads, so the client is slowed by
// TCP flow control instead of filling the server's memory.
func WithMaxBodyBuffered(n int) Option {
	return func(c *config) {
		if c.count("WithMaxBodyBuffered", int64(n), "128 KiB") {
			c.engine.MaxBodyBuffered = n
		}
	}
}

// WithHeaderReadTimeout bounds the time to receive a request head, from its
// first byte (default 10 s; 408 and close).
func WithHeaderReadTimeout(d time.Duration) Option {
	return func(c *config) {
		if c.timeout("WithHeaderReadTimeout", d, "10s") {
			c.engine.HeaderReadTimeout = d
		}
	}
}

// WithBodyReadTimeout bounds the time to receive a request body after its
// head (default 30 s; 408 and close). For a streamed body
// (Group.StreamBody), which may take any time, it bounds each wait for more
// body bytes while the handler is ready for them (the timer restarts with
// every byte and stops while the handler has not read what arrived): Read
// fails with ErrBodyReadTimeout, the response is a 408 unless it had begun
// to stream, and the connection closes. Over HTTP/2 it runs per stream the
// same way (408, then the stream is reset; the connection stays).
func WithBodyReadTimeout(d time.Duration) Option {
	return func(c *config) {
		if c.timeout("WithBodyReadTimeout", d, "30s") {
			c.engine.BodyReadTimeout = d
		}
	}
}

// WithIdleTimeout closes keep-alive connections idle this long (default 60 s).
func WithIdleTimeout(d time.Duration) Option {
	return func(c *config) {
		if c.timeout("WithIdleTimeout", d, "60s") {
			c.engine.IdleTimeout = d
		}
	}
}

// WithMaxPipelined bounds the requests of one connection in flight at once
// (default 64); further pipelined input waits until responses drain.
func WithMaxPipelined(n int) Option {
	return func(c *config) {
		if c.count("WithMaxPipelined", int64(n), "64") {
			c.engine.MaxPipelined = n
		}
	}
}

// WithMaxConnHandlers caps the handlers of one connection running on the
// worker pool at once (default: a sixteenth of WithWorkers, at least 4;
// 64 for the default pool), so that a few connections cannot take the
// whole pool. It matters for HTTP/2, where one connection carries many
// requests at once: a stream beyond the cap waits until one of its
// connection's handlers returns. (HTTP/1 is bounded by WithMaxPipelined;
// a WebSocket's callbacks run one at a time.)
func WithMaxConnHandlers(n int) Option {
	return func(c *config) {
		if c.count("WithMaxConnHandlers", int64(n), "a sixteenth of WithWorkers") {
			c.engine.MaxConnHandlers = n
		}
	}
}

// WithMaxInboundBytes caps the unparsed input buffered for one connection
// while its parsing is paused (default 1 MiB on Linux, where the engine
// stops reading from a client that runs ahead and only gnet's re-arms add
// to the buffer; 4 MiB elsewhere, where it keeps reading). A connection
// over the cap gets the responses already in flight, then is closed.
func WithMaxInboundBytes(n int) Option {
	return func(c *config) {
		if c.count("WithMaxInboundBytes", int64(n), "1 MiB on Linux") {
			c.engine.MaxInboundBytes = n
		}
	}
}

// WithWriteTimeout closes a connection whose queued response bytes have
// not moved for d (default 30 s): a client that stops reading cannot hold
// its responses in memory for ever. Any progress restarts the timer, so a
// slow but live reader is not cut.
func WithWriteTimeout(d time.Duration) Option {
	return func(c *config) {
		if c.timeout("WithWriteTimeout", d, "30s") {
			c.engine.WriteTimeout = d
		}
	}
}

// WithStreamThreshold sets how many body bytes a handler on a worker may
// Write before its response starts streaming: the head goes out and the
// body follows as it is written (default 32 KiB). Below it the response is
// sent whole, with a Content-Length, when the handler returns.
func WithStreamThreshold(n int) Option {
	return func(c *config) {
		if c.count("WithStreamThreshold", int64(n), "32 KiB") {
			c.engine.StreamThreshold = n
		}
	}
}

// WithMaxStreamQueued bounds the bytes of a streamed response queued and
// not yet taken by the socket (default 256 KiB; one response streams at a
// time per connection). Beyond it the handler's Write blocks on its worker
// until the client reads.
func WithMaxStreamQueued(n int) Option {
	return func(c *config) {
		if c.count("WithMaxStreamQueued", int64(n), "256 KiB") {
			c.engine.MaxStreamQueued = n
		}
	}
}

// WithSSEHeartbeat sets how often a Server-Sent Events stream (Ctx.SSE)
// sends a comment line when nothing else was sent, so that proxies and
// clients do not time the connection out and a client that left is noticed
// (default 15 s; a negative d turns heartbeats off).
func WithSSEHeartbeat(d time.Duration) Option {
	return func(c *config) {
		if d == 0 {
			c.optionError("WithSSEHeartbeat", d, "0 is not an interval (the default is 15s; a negative d turns heartbeats off)")
			return
		}
		c.sseHeartbeat = d
	}
}

// WithServerName sets the Server response header (default: none).
func WithServerName(name string) Option {
	return func(c *config) { c.engine.ServerName = name }
}

// WithLogger sets the logger for handler panics, errors and engine events
// (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.engine.Logger = l } }

// WithRedirectTrailingSlash turns the trailing-slash redirect on or off
// (default on): a request for /a/ when only /a exists (or the reverse) is
// redirected, 301 for GET and HEAD, 308 otherwise.
func WithRedirectTrailingSlash(on bool) Option {
	return func(c *config) { c.redirectTrailingSlash = on }
}

// WithErrorHandler sets what turns a handler's error into a response
// (default DefaultErrorHandler).
func WithErrorHandler(h ErrorHandler) Option { return func(c *config) { c.errorHandler = h } }

// WithMaxParkedHandshakes bounds the TLS handshakes waiting for their
// client's next flight (default 16 × WithMaxHandshakes, i.e. 1,024 per CPU;
// about 26 KB each). When one more would wait, the oldest waiting handshake
// is dropped and its connection closed, so clients that send a ClientHello
// and go silent cannot hold more than this, nor keep new clients out.
func WithMaxParkedHandshakes(n int) Option {
	return func(c *config) {
		if c.count("WithMaxParkedHandshakes", int64(n), "16 × WithMaxHandshakes") {
			c.tls.MaxParked = n
		}
	}
}

// WithHTTP2 says whether HTTP/2 is served. By default it is on TLS
// listeners only, as net/http does: h2 through ALPN, offered first when
// your NextProtos is empty (kept when you list it). WithHTTP2(true) adds
// h2c on plaintext listeners: by prior knowledge (a connection that opens
// with the HTTP/2 client preface) and by `Upgrade: h2c` on a request
// without a body. WithHTTP2(false) turns HTTP/2 off everywhere (ALPN then
// offers http/1.1 alone). Handlers do not change: Ctx.Protocol says which
// one a request came on. HTTP/2's limits are WithHTTP2Limits'.
func WithHTTP2(on bool) Option {
	return func(c *config) { c.engine.HTTP2, c.engine.H2C = on, on }
}

// WithDrainDelay makes Shutdown wait d between turning readiness off
// (Readyz answers 503) and closing the listeners, serving as usual
// meanwhile, so that a load balancer polling Readyz takes the server out of
// rotation before it stops accepting (set d above the balancer's check
// interval times its failure threshold). Default 0: the listeners close at
// once. A Shutdown context that ends during the delay cuts it short.
func WithDrainDelay(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.optionError("WithDrainDelay", d, "must not be negative (0, the default, closes the listeners at once)")
			return
		}
		c.drainDelay = d
	}
}
