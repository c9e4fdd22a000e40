package gwist

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gwist/gwist/engine"
	"github.com/gwist/gwist/router"
)

// serve is the engine.Handler: route the request, run its chain, turn a
// returned error into a response.
func (a *App) serve(ex *engine.Exchange) {
	c, _ := ex.User.(*Ctx)
	if c == nil || c.app != a {
		c = &Ctx{}
		ex.User = c
	}
	c.reset(a, ex)
	req := &ex.Request
	res := a.router.Lookup(req.Method, req.Path, &c.params)
	var h HandlerFunc
	switch res.Status {
	case router.Found:
		c.route = res.Pattern
		h = res.Handler.chain
	case router.MethodNotAllowed:
		c.SetHeader("Allow", a.router.Allowed(req.Path))
		h = a.methodChain
	case router.AutoOptions:
		c.SetHeader("Allow", a.router.Allowed(req.Path))
		c.Status(http.StatusNoContent)
		return
	case router.RedirectTrailingSlash:
		// "//host" would be a protocol-relative URL: never redirect there.
		if !strings.HasPrefix(res.Redirect, "//") {
			a.redirectSlash(c, res.Redirect)
			return
		}
		h = a.notFoundChain
	default:
		h = a.notFoundChain
	}
	if err := h(c); err != nil {
		if ex.Streaming() {
			a.streamFailed(c, err)
		} else {
			a.cfg.errorHandler(c, err)
		}
	}
	c.releaseForm() // a multipart form's temporary files
	if c.headerErr != nil && ex.Streaming() {
		ex.AbortStream()
		a.logger().Error("gwist: invalid trailer on a streamed response", slog.String("path", req.Path),
			slog.Any("error", c.headerErr))
	} else if c.headerErr != nil {
		a.logger().Error("gwist: invalid response header", slog.String("path", req.Path),
			slog.Any("error", c.headerErr))
		ex.Header.Reset()
		ex.Status = http.StatusInternalServerError
		ex.Body = append(ex.Body[:0], "Internal Server Error\n"...)
	}
}

// streamFailed handles an error returned after the response began to
// stream: the head is out, so the body is cut off (the connection closes)
// and the error is logged, or counted when the client had left.
func (a *App) streamFailed(c *Ctx, err error) {
	c.ex.AbortStream()
	if c.Context().Err() != nil || errors.Is(err, engine.ErrClientGone) {
		a.goneErrs.log(c, err)
		return
	}
	a.logger().Error("gwist: handler error after its response began to stream",
		slog.String("method", c.Method()), slog.String("path", c.Path()), slog.Any("error", err))
}

func (a *App) redirectSlash(c *Ctx, path string) {
	code := http.StatusPermanentRedirect
	if m := c.Method(); m == http.MethodGet || m == http.MethodHead {
		code = http.StatusMovedPermanently
	}
	loc := path
	if q := c.ex.Request.RawQuery; q != "" {
		loc = path + "?" + q
	}
	_ = c.Redirect(code, loc)
}
