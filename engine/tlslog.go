//go:build unix

package engine

import (
	"errors"
	"log/slog"
	"net"

	"github.com/gwist/gwist/tlsstate"
)

// logHandshakeFailure logs why a TLS handshake failed, as net/http's "http:
// TLS handshake error from ..." does, at most one line a second per
// listener with the count of the lines held back: clients cause these at
// will. The counters (Stats().TLS.Failed) count every one.
func (s *Server) logHandshakeFailure(remote net.Addr, err error) {
	var te *tlsstate.Error
	if !errors.As(err, &te) {
		return // closed, not failed
	}
	ok, held := s.tlsLog.Allow()
	if !ok {
		return
	}
	msg := te.Reason.String()
	if te.Err != nil {
		msg = te.Err.Error()
	}
	s.cfg.Logger.Warn("gwist: TLS handshake failed", slog.Any("remote", remote),
		slog.String("reason", te.Reason.String()), slog.String("error", msg), slog.Uint64("suppressed", held))
}
