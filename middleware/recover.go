package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"runtime/debug"

	"github.com/gwist/gwist"
)

// Recover turns a panic in the handlers inside it into a 500 answered by
// the App's error handler (the error is a *gwist.HTTPError whose Err is a
// *gwist.PanicError holding the value and the stack). The panic is logged
// at ERROR with the request's fields and the stack. What the handler had
// set for its body (status, body, Content-Type...) is dropped; headers set
// before it (request ID, CORS) stay. A panic after the response began to
// stream cuts the body off instead. Without Recover the App still recovers
// a panic, but the middleware it unwinds through (an access log) do not
// finish: put Recover inside them.
func Recover() gwist.Middleware {
	return func(next gwist.HandlerFunc) gwist.HandlerFunc {
		return func(c *gwist.Ctx) (err error) {
			defer func() {
				r := recover()
				if r == nil {
					return
				}
				pe := &gwist.PanicError{Value: r, Stack: debug.Stack()}
				c.Logger().LogAttrs(context.Background(), slog.LevelError, "gwist: handler panic",
					append(c.LogAttrs(), slog.Any("panic", r), slog.String("stack", string(pe.Stack)))...)
				c.ResetResponse() // false once streaming: the error then cuts the stream off
				err = &gwist.HTTPError{Code: http.StatusInternalServerError, Err: pe}
			}()
			return next(c)
		}
	}
}
