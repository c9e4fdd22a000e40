//go:build unix

package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/gwist/gwist/internal/lograte"
	"golang.org/x/sys/unix"
)

// The engine owns its listening socket; gnet owns the connections. gnet's
// own accept path ends the event loop (and the whole engine) on any accept
// error but EAGAIN, EINTR and ECONNABORTED, so one EMFILE would take the
// port down for good. An accept goroutine here survives every accept error,
// refuses what it cannot serve, and hands each accepted socket to a gnet loop.

// acceptBackoffMax bounds the pause between accept attempts while an error
// that a retry cannot fix at once (ENOBUFS, ENOMEM, no spare descriptor) lasts.
const acceptBackoffMax = 100 * time.Millisecond

// listen binds addr. Without reusePort a second server on the same port
// fails with "address already in use" (Go sets SO_REUSEADDR, so a restart
// does not wait for TIME_WAIT); with it, SO_REUSEPORT lets a new process
// bind beside this one. TCP keep-alive is left off: idle connections are
// the engine's to time out.
func listen(addr string, reusePort bool) (*net.TCPListener, error) {
	lc := net.ListenConfig{KeepAlive: -1}
	if reusePort {
		lc.Control = setReusePort
	}
	ln, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		return nil, err
	}
	return ln.(*net.TCPListener), nil
}

// setReusePort is a net.ListenConfig.Control that sets SO_REUSEPORT.
func setReusePort(_, _ string, rc syscall.RawConn) error {
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
	}); err != nil {
		return err
	}
	if serr != nil {
		return fmt.Errorf("SO_REUSEPORT: %w", serr)
	}
	return nil
}

// accepted is one connection taken from the listener: a *net.TCPConn
// from the net.TCPListener, or (nc nil) a raw descriptor and its peer's
// address from the raw accept (gnetreach_accept_linux.go; zoned: the
// address has an IPv6 zone, which remote does not carry).
type accepted struct {
	nc     *net.TCPConn
	fd     int
	remote *net.TCPAddr
	zoned  bool
}

// raw reports whether a came from the raw accept.
func (a accepted) raw() bool { return a.nc == nil }

// accept takes the next connection, raw when the raw accept is on.
func (s *Server) accept() (accepted, error) {
	if s.raw != nil {
		return s.raw.accept()
	}
	nc, err := s.ln.AcceptTCP()
	return accepted{nc: nc}, err
}

// acceptLoop accepts until the listener is closed.
func (s *Server) acceptLoop() {
	defer close(s.acceptDone)
	spare := openSpare()
	defer func() { spare.Close() }()
	backoff := time.Duration(0)
	for {
		a, err := s.accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			s.stats.acceptErrors.Add(1)
			s.acceptLog.warn(s.cfg.Logger, "gwist: accept failed; new connections are refused while it lasts", err)
			if isFDExhaustion(err) && spare.release() {
				// With the spare descriptor given back, take the connection
				// that is waiting and refuse it at once, rather than leave
				// it (and everything behind it) hanging in the backlog.
				if a, err := s.accept(); err == nil {
					s.refuse(a)
				}
				if spare.reopen() {
					backoff = 0
					continue
				}
			}
			backoff = min(max(2*backoff, time.Millisecond), acceptBackoffMax)
			time.Sleep(backoff)
			spare.reopen()
			continue
		}
		backoff = 0
		// A connection accepted while Shutdown closes the listener is
		// served (its response says Connection: close): it is typically a
		// client reconnecting after such a response, and resetting it
		// would lose the request it is about to send.
		var ctx any = s
		if !s.limit.reserve() {
			if !s.limit.reserveShed(s.cfg.TLS == nil && s.cfg.ProxyProtocol == nil) {
				s.refuse(a)
				continue
			}
			s.stats.refused.Add(1)
			ctx = shedMark{s} // answered 503 if its request comes (shed.go)
		}
		if err := s.enroll(a, ctx); err != nil {
			// gnet closed the socket (typically: no descriptor left for
			// EnrollContext's dup); the client sees it closed at once.
			s.enrollFailed(ctx, err)
		}
	}
}

// enroll hands a to a gnet loop, whose OnOpen takes over the place a
// holds in the connection limit (or the shed reserve, with ctx shedMark).
// On error the socket is closed and the place is the caller's to give
// back; an error after enroll returned (raw accept only: on the loop)
// gives it back itself.
func (s *Server) enroll(a accepted, ctx any) error {
	if a.raw() {
		return s.enrollRaw(a, ctx, func(err error) { s.enrollFailed(ctx, err) })
	}
	_, err := s.cli.EnrollContext(a.nc, ctx)
	return err
}

// enrollFailed gives back the place of a connection gnet could not take.
func (s *Server) enrollFailed(ctx any, err error) {
	if _, shed := ctx.(shedMark); shed {
		s.limit.shed.Add(-1)
	} else {
		s.limit.open.Add(-1)
	}
	s.stats.acceptErrors.Add(1)
	s.stats.refused.Add(1)
	s.acceptLog.warn(s.cfg.Logger, "gwist: could not hand an accepted connection to a loop", err)
}

// refuse closes a with a reset, so the client learns at once that it was
// not served (a FIN would read as a server that closed an idle connection).
func (s *Server) refuse(a accepted) {
	s.stats.refused.Add(1)
	if a.raw() {
		refuseRaw(a.fd)
		return
	}
	_ = a.nc.SetLinger(0)
	_ = a.nc.Close()
}

func isFDExhaustion(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// spareFD is one descriptor held in reserve: when accept fails for want of
// descriptors, closing it makes room to accept and refuse the waiting
// connection (the classic "idle fd" trick of libev and nginx-era servers).
type spareFD struct{ f *os.File }

func openSpare() *spareFD {
	s := &spareFD{}
	s.reopen()
	return s
}

// release gives the descriptor back; false when none was held.
func (s *spareFD) release() bool {
	if s.f == nil {
		return false
	}
	_ = s.f.Close()
	s.f = nil
	return true
}

// reopen takes a descriptor again if none is held; false when it cannot.
func (s *spareFD) reopen() bool {
	if s.f == nil {
		s.f, _ = os.Open(os.DevNull)
	}
	return s.f != nil
}

func (s *spareFD) Close() { s.release() }

// rateLog logs at most one line a second and counts what it held back.
type rateLog struct{ lim lograte.Limiter }

func (r *rateLog) warn(l *slog.Logger, msg string, err error) {
	if ok, held := r.lim.Allow(); ok {
		l.Warn(msg, slog.String("error", err.Error()), slog.Uint64("suppressed", held))
	}
}
