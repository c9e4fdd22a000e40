//go:build unix

package engine

import "github.com/gwist/gwist/http1"

// A request the worker pool has no room for is answered on the loop with
// 503 and Retry-After. Config.Rejected lets the layer above make that
// answer (its error handler: a JSON API answers in JSON) from the
// request's head; the handler does not run.

// fillRejected makes ex's response the 503 for a request the pool
// refused: Config.Rejected's, or the engine's plain-text one. Loop only.
func (s *Server) fillRejected(ex *Exchange) {
	ex.Status = 503
	ex.Header.Reset()
	ex.Body = ex.Body[:0]
	if s.cfg.Rejected != nil {
		s.cfg.Rejected(ex)
	} else {
		_ = ex.Header.Set("Content-Type", "text/plain; charset=utf-8")
		ex.Body = append(ex.Body, "Service Unavailable\n"...)
	}
	if ex.Header.Get("Retry-After") == "" {
		_ = ex.Header.Set("Retry-After", "1")
	}
}

// appendRejected appends the HTTP/1 503 for ex, whose batch the pool
// refused; the connection closes after it. Loop only.
func (s *Server) appendRejected(dst []byte, ex *Exchange) []byte {
	if s.cfg.Rejected == nil {
		return http1.AppendError(dst, 503, 1)
	}
	s.fillRejected(ex)
	return ex.appendResponse(dst, false, s.cfg.ServerName)
}
