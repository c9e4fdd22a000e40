//go:build unix

package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/panjf2000/gnet/v2"

	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/http2"
	"github.com/gwist/gwist/internal/lograte"
	"github.com/gwist/gwist/tlsstate"
)

// ErrServerClosed is returned by Wait after Shutdown.
var ErrServerClosed = errors.New("gwist: server closed")

// drainPollInterval is how often Shutdown looks whether the last connection
// has closed, and sweeps for connections that became idle.
const drainPollInterval = 5 * time.Millisecond

// Server serves HTTP on one listening address. It owns the listening socket
// and accepts on a goroutine of its own (listener.go); the connections it
// accepts run on gnet event loops. Create it with NewServer, start it with
// Start, stop it with Shutdown.
type Server struct {
	cfg     Config
	handler Handler
	limit   *ConnLimit

	ln         *net.TCPListener
	raw        *rawAcceptor // nil: accept through ln (gnetreach_accept_linux.go)
	cli        *gnet.Client
	addr       net.Addr
	acceptDone chan struct{}
	acceptLog  rateLog
	tlsLog     lograte.Limiter // failed handshakes (tlslog.go)
	runDone    chan struct{}
	draining   atomic.Bool
	cut        atomic.Int64 // connections Shutdown closed when its context ended
	stopped    atomic.Bool
	conns      atomic.Int64
	detached   atomic.Int64 // detached responses open (detached.go)
	h2conns    atomic.Int64 // connections speaking HTTP/2 (h2driver.go)
	h2streams  atomic.Int64 // HTTP/2 streams the engine holds (h2driver.go, h2stream.go)
	wsconns    atomic.Int64 // WebSocket connections open (wsdriver.go)
	h2counters http2.Counters
	stats      struct{ acceptErrors, refused atomic.Uint64 }
	pipe       pipeStats // read pause and write timeout (pipestats.go)
	mem        memWatch  // when to give memory back (memrelease.go); the tick's only
	stopTick   chan struct{}
	tickDone   chan struct{}

	clock atomic.Int64 // coarse unix-ns clock, advanced by tick
	// wallClock is time.Now, for the waits too short for clock (the
	// drain's grace); tests set it to drive time themselves.
	wallClock func() time.Time

	loopsMu sync.Mutex
	loops   map[gnet.EventLoop]*loopState

	proxy proxyCounters // PROXY protocol outcomes (proxy.go)
}

// NewServer checks cfg and returns a server that runs h for every request.
func NewServer(cfg Config, h Handler) (*Server, error) {
	if h == nil {
		return nil, errors.New("gwist: nil handler")
	}
	// Once per process, before the defaults that depend on the outcome.
	checkReaches(cmp.Or(cfg.Logger, slog.Default()), cfg.TLS)
	c := cfg.withDefaults()
	if !c.Inline && c.Workers == nil {
		return nil, errors.New("gwist: Config.Workers is required unless Inline")
	}
	if c.StreamBody != nil && c.Workers == nil {
		return nil, errors.New("gwist: Config.Workers is required with StreamBody (streamed bodies are read on workers)")
	}
	s := &Server{
		cfg:        c,
		handler:    h,
		limit:      c.Conns,
		acceptDone: make(chan struct{}),
		runDone:    make(chan struct{}),
		stopTick:   make(chan struct{}),
		tickDone:   make(chan struct{}),
		loops:      make(map[gnet.EventLoop]*loopState),
	}
	if s.limit == nil {
		s.limit = NewConnLimit(0)
	}
	if c.ProxyProtocol != nil {
		pp, err := c.ProxyProtocol.normalized()
		if err != nil {
			return nil, err
		}
		s.cfg.ProxyProtocol = pp
	}
	s.clock.Store(time.Now().UnixNano())
	s.wallClock = time.Now
	return s, nil
}

// now is the coarse clock for connection timers.
func (s *Server) now() int64 { return s.clock.Load() }

// Start listens on addr ("host:port"; port 0 picks a free one) and serves in
// the background. It returns the bound address once the loops run.
func (s *Server) Start(addr string) (net.Addr, error) {
	if s.ln != nil {
		return nil, errors.New("gwist: Start called twice")
	}
	ln, err := listen(addr, s.cfg.ReusePort)
	if err != nil {
		return nil, fmt.Errorf("gwist: listen %s: %w", addr, err)
	}
	if s.cfg.Group == nil {
		s.cfg.Group = NewLoopGroup()
	}
	cli, err := s.cfg.Group.acquire(s.cfg.Loops, gnetLogger{s.cfg.Logger})
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	s.ln, s.cli, s.addr = ln, cli, ln.Addr()
	if r, err := newRawAcceptor(s); err == nil {
		s.raw = r
	} else {
		s.cfg.Logger.Debug("gwist: accepting through net.TCPListener", "why", err.Error())
	}
	go s.acceptLoop()
	go s.tick()
	return s.addr, nil
}

// Addr is the bound address (nil before Start).
func (s *Server) Addr() net.Addr { return s.addr }

// Wait blocks until Shutdown has stopped the server, then returns
// ErrServerClosed. (The accept loop survives every accept error, so nothing
// else stops a server.)
func (s *Server) Wait() error {
	<-s.runDone
	return ErrServerClosed
}

// TLS is the server's TLS state machine factory, nil for plaintext.
func (s *Server) TLS() *tlsstate.Server { return s.cfg.TLS }

// ActiveConns is the number of open connections.
func (s *Server) ActiveConns() int64 { return s.conns.Load() }

// HTTP2Conns is the number of open connections speaking HTTP/2.
func (s *Server) HTTP2Conns() int64 { return s.h2conns.Load() }

// HTTP2Streams is the number of HTTP/2 streams in progress: from their
// request's headers until their response is written or the stream reset.
func (s *Server) HTTP2Streams() int64 { return s.h2streams.Load() }

// WebSocketConns is the number of open WebSocket connections.
func (s *Server) WebSocketConns() int64 { return s.wsconns.Load() }

// HTTP2Stats counts this server's HTTP/2 streams, resets and GOAWAYs.
func (s *Server) HTTP2Stats() http2.Stats { return s.h2counters.Snapshot() }

// DetachedResponses is the number of detached responses open (see
// Exchange.Detach).
func (s *Server) DetachedResponses() int64 { return s.detached.Load() }

// AcceptErrors counts failed accepts (EMFILE, ENFILE, ENOBUFS, …) and
// accepted connections that could not be handed to a loop.
func (s *Server) AcceptErrors() uint64 { return s.stats.acceptErrors.Load() }

// RefusedConns counts connections closed at once, unserved: beyond the
// ConnLimit, or taken from the backlog to be refused while
// descriptors ran out.
func (s *Server) RefusedConns() uint64 { return s.stats.refused.Load() }

// CutConns is the number of connections Shutdown closed unfinished because
// its context ended first (0 until then).
func (s *Server) CutConns() int { return int(s.cut.Load()) }

// Shutdown closes the listener first (from then on the kernel refuses new
// connections), closes idle connections, lets in-flight requests finish and
// their responses flush (each with Connection: close), then stops the loops.
// When ctx ends first, the remaining connections are closed (their requests'
// contexts cancelled) and ctx's error is returned.
func (s *Server) Shutdown(ctx context.Context) error {
	if s.ln == nil {
		return errors.New("gwist: Shutdown before Start")
	}
	if s.stopped.Swap(true) {
		<-s.runDone
		return nil
	}
	// The listener closes before responses start saying Connection: close,
	// so that a client reconnecting after one finds the port closed (or,
	// with SO_REUSEPORT, the new process's listener), never this one's
	// accept queue in the instant it closes, which resets what is in it.
	_ = s.ln.Close()
	if s.raw != nil {
		s.raw.close() // the socket's last descriptor: it stops listening
	}
	s.draining.Store(true)
	<-s.acceptDone
	if s.raw != nil {
		s.raw.wait() // every connection accepted is open on its loop
	}
	s.sweepAll()
	var err error
	wait := time.NewTicker(drainPollInterval)
	defer wait.Stop()
	for s.conns.Load() > 0 && err == nil {
		select {
		case <-ctx.Done():
			err = ctx.Err()
		case <-wait.C:
			s.sweepAll()
		}
	}
	if err != nil {
		s.cut.Store(s.conns.Load())
		s.closeRemaining()
	}
	close(s.stopTick)
	<-s.tickDone
	if stopErr := s.cfg.Group.release(); stopErr != nil && err == nil {
		err = stopErr
	}
	close(s.runDone)
	return err
}

// tick drives the once-a-second Date refresh and the per-loop sweeps.
func (s *Server) tick() {
	defer close(s.tickDone)
	t := time.NewTicker(tickInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stopTick:
			return
		case now := <-t.C:
			s.clock.Store(now.UnixNano())
			http1.Date.Refresh(now)
			s.noteHeld(now) // the previous sweep's sums
			s.sweepAll()
		}
	}
}

func (s *Server) sweepAll() {
	s.loopsMu.Lock()
	defer s.loopsMu.Unlock()
	for el, ls := range s.loops {
		_ = el.Execute(context.Background(), ls)
	}
}

func (s *Server) loopFor(el gnet.EventLoop) *loopState {
	s.loopsMu.Lock()
	defer s.loopsMu.Unlock()
	ls := s.loops[el]
	if ls == nil {
		ls = &loopState{srv: s}
		s.loops[el] = ls
	}
	return ls
}

// onOpen is gnet's OnOpen: a connection is accepted on a loop.
func (s *Server) onOpen(gc gnet.Conn) ([]byte, gnet.Action) {
	// During a drain the connection is served all the same (see
	// acceptLoop): its first response says Connection: close, and if it
	// sends nothing the drain closes it as idle.
	c := newConn(s, gc)
	if _, shed := gc.Context().(shedMark); shed {
		c.shed = true
		c.proto = &shedding{c: c}
		c.setPhase(phaseIdle, shedTimeout)
	} else {
		// Its place under the limit was taken when it was accepted.
		c.setPhase(phaseIdle, s.cfg.IdleTimeout)
	}
	gc.SetContext(c)
	ls := s.loopFor(c.el)
	ls.opened++
	ls.add(c)
	if c.shed {
		// Served by its shedding driver only.
	} else if s.cfg.ProxyProtocol != nil {
		c.waitProxyHeader(s.cfg.ProxyProtocol) // TLS starts after the header
	} else if s.cfg.TLS != nil {
		c.openTLS(s.cfg.TLS)
	}
	s.conns.Add(1)
	return nil, gnet.None
}

// onTraffic is gnet's OnTraffic: input arrived.
func (s *Server) onTraffic(gc gnet.Conn) gnet.Action {
	c, ok := gc.Context().(*conn)
	if !ok {
		return gnet.Close
	}
	return c.onTraffic()
}

// onClose is gnet's OnClose: the connection is gone.
func (s *Server) onClose(gc gnet.Conn, err error) gnet.Action {
	c, ok := gc.Context().(*conn)
	if !ok {
		return gnet.None
	}
	if c.outliveReadEOF(err) {
		return gnet.None // it goes on on a duplicate of the socket
	}
	c.onClose()
	if c.loop != nil {
		c.loop.remove(c)
	}
	gc.SetContext(nil)
	s.conns.Add(-1)
	if c.shed {
		s.limit.shed.Add(-1)
	} else {
		s.limit.open.Add(-1)
	}
	return gnet.None
}

// serve runs the handler, turning a panic into a 500.
func (s *Server) serve(ex *Exchange) {
	defer func() {
		if r := recover(); r != nil {
			s.cfg.Logger.Error("gwist: handler panic",
				slog.Any("panic", r),
				slog.String("method", ex.Request.Method),
				slog.String("target", ex.Request.Target),
				slog.String("stack", string(debug.Stack())))
			ex.AbortStream() // a streamed response cannot become a 500 any more
			ex.Status = 500
			ex.Header.Reset()
			_ = ex.Header.Set("Content-Type", "text/plain; charset=utf-8")
			ex.Body = append(ex.Body[:0], "Internal Server Error\n"...)
		}
	}()
	s.handler(ex)
}

func (s *Server) logDebug(msg string, c *conn) {
	if s.cfg.Logger.Enabled(context.Background(), slog.LevelDebug) {
		s.cfg.Logger.Debug("gwist: "+msg, slog.Any("remote", c.remote))
	}
}
