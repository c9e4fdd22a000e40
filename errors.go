package gwist

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/gwist/gwist/internal/lograte"
)

// ErrServerClosed is returned by Listen after Shutdown.
var ErrServerClosed = errors.New("gwist: server closed")

// Errors from a streamed response's Write and Flush (see Ctx.Flush).
var (
	// ErrInlineStreaming is returned by Flush on an app running handlers on
	// the event loop (WithInline), which never streams: a handler there must
	// not wait for a client. Its writes are buffered and sent whole.
	ErrInlineStreaming = errors.New("gwist: streaming needs the worker pool (the App is WithInline)")
	// ErrClientGone is returned by Write and Flush once the connection has
	// closed; the request's context is cancelled too.
	ErrClientGone = errors.New("gwist: client gone")
	// ErrBodyLength is returned by a Write that would pass the Content-Length
	// the handler set; the connection is closed after what was sent.
	ErrBodyLength = errors.New("gwist: response body longer than its Content-Length")
	// ErrStreamWriteTimeout is returned by a Write the client did not let
	// progress for the write timeout (WithWriteTimeout).
	ErrStreamWriteTimeout = errors.New("gwist: write timeout: the client stopped reading")
)

// HTTPError is an error with the HTTP status it should produce. Return one
// from a handler to answer with that status.
type HTTPError struct {
	Code    int    // HTTP status code
	Message string // response body; the status text when empty
	Err     error  // optional cause, logged but not sent
}

// NewHTTPError returns an HTTPError for code with an optional message.
func NewHTTPError(code int, message string) *HTTPError {
	return &HTTPError{Code: code, Message: message}
}

func (e *HTTPError) Error() string {
	msg := e.Text()
	if e.Err != nil {
		return msg + ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the cause.
func (e *HTTPError) Unwrap() error { return e.Err }

// ErrorHandler turns an error returned by a handler into a response.
type ErrorHandler func(c *Ctx, err error)

// DefaultErrorHandler answers an *HTTPError with its code and message and
// any other error with 500, logging it at ERROR. When the handler had
// already set a response it is left as is and the error is only logged.
//
// An error returned after the request's context was cancelled (the client
// went away, or Shutdown forced the close) is not the server's fault and a
// client could flood the log with them: it is counted in
// Stats().ClientGoneErrors and logged at INFO at most once per second, with
// the number of such errors left unlogged since the previous line.
//
// The router's own answers come here too, as an *HTTPError: 404, 405 (the
// Allow header already set), the automatic OPTIONS (204, Allow set) and the
// trailing-slash redirects (301 or 308, Location set), and so do the
// requests the engine refused after their head (413, 400) and, on the
// event loop, the worker pool's 503s. A code below 400, and any code
// whose response has no body, is answered without a body.
func DefaultErrorHandler(c *Ctx, err error) {
	he := ErrorStatus(c, err)
	if c.responded {
		return
	}
	if he.Code < 400 || !bodyAllowedForStatus(he.Code) {
		_ = c.NoContent(he.Code)
		return
	}
	c.setContentType("text/plain; charset=utf-8")
	c.Status(he.Code)
	_ = c.setBodyLine(he.Text())
}

// ErrorStatus is the first step of an ErrorHandler, for writing one: the
// *HTTPError that err is or wraps, or, for any other error, a 500 (whose
// details are not for the client), logged as DefaultErrorHandler logs it:
// at ERROR with the request's fields, or counted and rate-limited when the
// client had gone away.
func ErrorStatus(c *Ctx, err error) *HTTPError {
	if he, ok := err.(*HTTPError); ok { // the router's: no allocation
		return he
	}
	var he *HTTPError
	if errors.As(err, &he) {
		return he
	}
	if c.ex.Context().Err() != nil {
		c.app.goneErrs.log(c, err)
	} else {
		c.app.logError(c, "gwist: handler error", slog.Any("error", err))
	}
	return &HTTPError{Code: http.StatusInternalServerError}
}

// Text is the message to send: Message, or the status text when it is
// empty.
func (e *HTTPError) Text() string {
	if e.Message == "" {
		return http.StatusText(e.Code)
	}
	return e.Message
}

// goneErrors counts handler errors returned after the request's context was
// cancelled and rate-limits their log lines (one a second).
type goneErrors struct {
	count atomic.Uint64
	lines lograte.Limiter
}

// log counts err and logs it unless a line was logged less than a second ago.
func (g *goneErrors) log(c *Ctx, err error) {
	g.count.Add(1)
	if ok, n := g.lines.Allow(); ok {
		c.app.logger().LogAttrs(context.Background(), slog.LevelInfo, "gwist: handler error after the client went away",
			append(c.LogAttrs(), slog.Any("error", err), slog.Uint64("unlogged_since_last", n))...)
	}
}
