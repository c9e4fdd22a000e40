package gwist

import (
	"errors"
	"log/slog"
	"net/http"
)

// ErrServerClosed is returned by Listen after Shutdown.
var ErrServerClosed = errors.New("gwist: server closed")

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
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Code)
	}
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
// any other error with 500, logging it. When the handler had already set a
// response it is left as is and the error is only logged.
func DefaultErrorHandler(c *Ctx, err error) {
	var he *HTTPError
	if !errors.As(err, &he) {
		c.app.logger().Error("gwist: handler error", slog.String("method", c.Method()),
			slog.String("path", c.Path()), slog.Any("error", err))
		he = &HTTPError{Code: http.StatusInternalServerError}
	}
	if c.responded {
		return
	}
	msg := he.Message
	if msg == "" {
		msg = http.StatusText(he.Code)
	}
	_ = c.String(he.Code, msg+"\n")
}
