package middleware

import (
	"context"
	"log/slog"
	"time"

	"github.com/gwist/gwist"
)

// AccessLog logs one line per request at INFO, after it was answered:
// method, route (the pattern, "" when none matched), path, status, bytes
// (the body as sent: compressed when Gzip runs inside), duration (until the
// handler chain returned; a streamed body's tail may still be leaving),
// request_id (when RequestID runs before it) and remote (the client's
// address). A nil logger means the App's (gwist.WithLogger). Put it after
// RequestID and outside Recover, so that panics are logged as 500s.
func AccessLog(logger *slog.Logger) gwist.Middleware {
	return func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			start := time.Now()
			err := next(c)
			l := logger
			if l == nil {
				l = c.Logger()
			}
			if !l.Enabled(context.Background(), slog.LevelInfo) {
				return err
			}
			l.LogAttrs(context.Background(), slog.LevelInfo, "request",
				slog.String("method", c.Method()),
				slog.String("route", c.Route()),
				slog.String("path", c.Path()),
				slog.Int("status", c.ResponseStatus()),
				slog.Int64("bytes", c.BytesWritten()),
				slog.Duration("duration", time.Since(start)),
				slog.String("request_id", GetRequestID(c)),
				slog.String("remote", remoteString(c)),
			)
			return err
		}
	}
}

// remoteString is the client's address as text ("" when unknown).
func remoteString(c *gwist.Ctx) string {
	if a := c.RemoteAddr(); a != nil {
		return a.String()
	}
	return ""
}
