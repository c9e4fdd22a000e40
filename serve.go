package gwist

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/http1"
	"github.com/gwist/gwist/router"
)

// serve is the engine.Handler: run the app-level middleware around
// routing, and turn an error or a panic into a response.
func (a *App) serve(ex *engine.Exchange) { a.serveWith(ex, a.appChain) }

// serveWith runs chain for the request, turning an error or a panic into a
// response. A listener of its own (StartACMEHTTP) runs another chain than
// the App's.
func (a *App) serveWith(ex *engine.Exchange, chain HandlerFunc) {
	c, _ := ex.User.(*Ctx)
	if c == nil || c.app != a {
		c = &Ctx{}
		ex.User = c
	}
	c.reset(a, ex)
	if o := a.observer; o != nil {
		start := time.Duration(ex.ClockCarry()) // the previous request's end, when it ran just before
		if start == 0 {
			start = sinceBase()
		}
		defer a.observe(o, c, start) // last: after the recovery and the error handler
	}
	defer c.finish()
	defer a.recoverPanic(c)
	err := chain(c)
	if c.typeState == typePending {
		_ = c.endSniff()
	}
	if err != nil {
		c.answerError(err)
	}
	a.checkHeaders(c)
}

// dispatch routes the request and runs what answers it: the route's chain
// (its groups' and its own middleware, then the handler), or the router's
// own answers, or, for a request the engine refused after its head, the
// error handler. App-level middleware runs around it.
func (a *App) dispatch(c *Ctx) error {
	req := &c.ex.Request
	method := req.Method
	if req.ProtoMajor == 2 && method == http.MethodConnect && c.ex.Protocol() != "" {
		method = http.MethodGet // an extended CONNECT (RFC 8441) finds the GET route: gwist.WebSocket's
	}
	res := a.router.Lookup(method, req.Path, &c.params)
	if status, err := c.ex.Refused(); status != 0 {
		// The engine refused the request once its head was in (a body over
		// the limit, bad framing): the handler does not run, the error
		// handler answers, and the connection closes after it.
		if res.Status == router.Found {
			c.route, c.routeIndex = res.Pattern, res.Handler.index
		}
		return &HTTPError{Code: status, Err: err}
	}
	switch res.Status {
	case router.Found:
		c.route, c.routeIndex = res.Pattern, res.Handler.index
		if method != req.Method {
			return a.serveTunnel(c, res.Handler.chain)
		}
		return res.Handler.chain(c)
	case router.MethodNotAllowed:
		c.SetHeader("Allow", a.router.Allowed(req.Path))
		if a.methodNotAllowed != nil {
			return a.methodNotAllowed(c)
		}
		return c.routerAnswer(http.StatusMethodNotAllowed)
	case router.AutoOptions:
		c.SetHeader("Allow", a.router.Allowed(req.Path))
		return c.routerAnswer(http.StatusNoContent)
	case router.RedirectTrailingSlash:
		// "//host" would be a protocol-relative URL: never redirect there.
		if !strings.HasPrefix(res.Redirect, "//") {
			return a.redirectSlash(c, res.Redirect)
		}
	}
	if a.notFound != nil {
		return a.notFound(c)
	}
	return c.routerAnswer(http.StatusNotFound)
}

// serveTunnel runs the GET route an extended CONNECT (RFC 8441) found. A
// 2xx answer to it opens a tunnel (RFC 8441 section 5): unless the handler
// accepted a WebSocket (Ctx.WebSocket), a 2xx becomes 405 with the route's
// Allow (the resource does not take CONNECT), as net/http's ServeMux
// answers a CONNECT to a GET route. A 2xx that began to stream is refused
// by the engine before anything is sent: its Flush fails, and the error
// handler answers that error.
func (a *App) serveTunnel(c *Ctx, chain HandlerFunc) error {
	err := chain(c)
	if c.upgraded {
		return err
	}
	if st := c.ex.Status; st != 0 && (st < 200 || st > 299) {
		return err // an error status (or a 1xx): the tunnel stays shut
	}
	if !c.ResetResponse() {
		return err
	}
	if err != nil {
		return err // the error handler answers afresh
	}
	c.SetHeader("Allow", a.router.Allowed(c.ex.Request.Path))
	return c.routerAnswer(http.StatusMethodNotAllowed)
}

// routerAnswer has the error handler answer one of the router's own
// statuses, as an *HTTPError, and returns nil: middleware around routing
// see the answer (its status, its headers), not an error, as they see a
// handler's answer.
func (c *Ctx) routerAnswer(code int) error {
	c.answerError(routerErrors[code])
	return nil
}

// routerErrors are the router's answers, made once: answering them
// allocates nothing (an error handler must not change them).
var routerErrors = map[int]*HTTPError{}

func init() {
	for _, code := range []int{http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusNoContent,
		http.StatusMovedPermanently, http.StatusPermanentRedirect} {
		routerErrors[code] = &HTTPError{Code: code}
	}
}

// answered wraps next so that an error it returns is answered (by the error
// handler) before the middleware that called it goes on: a middleware
// reads the final status after next. The error is still returned, for the
// middleware to see; it is not answered twice.
func (a *App) answered(next HandlerFunc) HandlerFunc {
	return func(c *Ctx) error {
		err := next(c)
		if c.typeState == typePending {
			_ = c.endSniff() // before the middleware's own writer finishes
		}
		if err != nil {
			c.answerError(err)
		}
		return err
	}
}

// answerError turns err into a response through the error handler, unless
// this error (or one it wraps) was answered already.
func (c *Ctx) answerError(err error) {
	if c.handled != nil && errors.Is(err, c.handled) {
		return
	}
	c.handled = err
	if c.ex.Streaming() {
		c.app.streamFailed(c, err)
		return
	}
	c.app.cfg.errorHandler(c, err)
}

// PanicError is the error a recovered handler panic becomes: the App's
// last-resort recovery and middleware.Recover give it (inside an
// *HTTPError with code 500) to the error handler.
type PanicError struct {
	Value any    // what was passed to panic
	Stack []byte // the panicking goroutine's stack
}

func (e *PanicError) Error() string { return fmt.Sprintf("panic: %v", e.Value) }

// Unwrap returns the panic value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// recoverPanic is the last resort for a panic no middleware recovered: it
// is logged with the request's fields and its stack, and answered with 500
// through the error handler, keeping the headers that do not describe the
// abandoned body (ResetResponse). A streamed response is cut off instead.
// Middleware the panic unwound through did not finish (an access log
// outside it logs nothing): put middleware.Recover inside them.
func (a *App) recoverPanic(c *Ctx) {
	r := recover()
	if r == nil {
		return
	}
	pe := &PanicError{Value: r, Stack: debug.Stack()}
	a.logError(c, "gwist: handler panic", slog.Any("panic", r), slog.String("stack", string(pe.Stack)))
	if !c.ResetResponse() {
		c.ex.AbortStream() // a streamed response cannot become a 500 any more
		return
	}
	c.w = nil // a wrapping writer may be mid-way: answer directly
	c.answerError(&HTTPError{Code: http.StatusInternalServerError, Err: pe})
	a.checkHeaders(c)
}

// LogAttrs are the request's fields for a log line about it: method,
// path, route, remote (the client's address) and, when a request ID was
// Set under RequestIDKey, request_id. gwist's own lines carry them.
func (c *Ctx) LogAttrs() []slog.Attr {
	attrs := make([]slog.Attr, 4, 8)
	attrs[0] = slog.String("method", c.Method())
	attrs[1] = slog.String("path", c.Path())
	attrs[2] = slog.String("route", c.route)
	attrs[3] = slog.String("remote", "")
	if ra := c.RemoteAddr(); ra != nil {
		attrs[3] = slog.String("remote", ra.String())
	}
	if id := c.requestID(); id != "" {
		attrs = append(attrs, slog.String("request_id", id))
	}
	return attrs
}

// logError logs msg at ERROR with the request's fields and more.
func (a *App) logError(c *Ctx, msg string, more ...slog.Attr) {
	a.logger().LogAttrs(context.Background(), slog.LevelError, msg, append(c.LogAttrs(), more...)...)
}

// checkHeaders turns a refused response header (header injection) into a
// 500, or cuts off a streamed response whose trailer was refused.
func (a *App) checkHeaders(c *Ctx) {
	if c.headerErr == nil {
		return
	}
	ex := c.ex
	if ex.Streaming() {
		ex.AbortStream()
		a.logError(c, "gwist: invalid trailer on a streamed response", slog.Any("error", c.headerErr))
		return
	}
	a.logError(c, "gwist: invalid response header", slog.Any("error", c.headerErr))
	ex.Header.Reset()
	ex.Status = http.StatusInternalServerError
	ex.Body = append(ex.Body[:0], "Internal Server Error\n"...)
}

// streamFailed handles an error returned after the response began to
// stream: the head is out, so the body is cut off (the connection closes)
// and the error is logged, or counted when the client had left.
func (a *App) streamFailed(c *Ctx, err error) {
	c.ex.AbortStream()
	if c.ex.Context().Err() != nil || errors.Is(err, ErrClientGone) || errors.Is(err, engine.ErrClientGone) {
		a.goneErrs.log(c, err)
		return
	}
	a.logError(c, "gwist: handler error after its response began to stream", slog.Any("error", err))
}

func (a *App) redirectSlash(c *Ctx, path string) error {
	code := http.StatusPermanentRedirect
	if m := c.ex.Request.Method; m == http.MethodGet || m == http.MethodHead {
		code = http.StatusMovedPermanently
	}
	loc := path
	if q := c.ex.Request.RawQuery; q != "" {
		loc = path + "?" + q
	}
	if !http1.ValidHeaderValue(loc) {
		return errors.New("gwist: invalid redirect location")
	}
	c.SetHeader("Location", loc)
	return c.routerAnswer(code)
}
