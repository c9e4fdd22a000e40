package middleware

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gwist/gwist"
)

// ErrHandlerTimeout is the cause in the 503 *gwist.HTTPError that Timeout
// returns.
var ErrHandlerTimeout = errors.New("middleware: handler timeout")

// Timeout gives the handlers inside it a context with a deadline d from
// now (c.Context()). When the deadline has passed by the time they return
// and the response has not started streaming, what they answered is
// replaced by 503 Service Unavailable (through the error handler), as
// net/http's TimeoutHandler does; a response whose head already went out
// is left to finish (its context is done, so a handler that watches it
// stops). Go cannot stop a goroutine: a handler that ignores its context
// still holds its worker until it returns. Each use costs a timer and a
// goroutine watching the client's close for the request's duration.
func Timeout(d time.Duration) gwist.Middleware {
	return func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) error {
			prev := c.Context()
			ctx, cancel := context.WithTimeout(prev, d)
			defer cancel()
			c.SetContext(ctx)
			err := next(c)
			c.SetContext(prev)
			if errors.Is(ctx.Err(), context.DeadlineExceeded) && c.ResetResponse() {
				return &gwist.HTTPError{Code: http.StatusServiceUnavailable, Err: ErrHandlerTimeout}
			}
			return err
		}
	}
}
