package gwist

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/gwist/gwist/engine"
)

// rejected answers, on the event loop, a request the worker pool had no
// room for (engine.Config.Rejected): the error handler makes the 503 (a
// JSON API's is JSON) from the request's head; the route's handler and
// the middleware do not run, so that nothing slow runs on the loop. A
// panic in the error handler is logged and the engine's plain 503 goes
// out instead.
func (a *App) rejected(ex *engine.Exchange) {
	c, _ := ex.User.(*Ctx)
	if c == nil || c.app != a {
		c = &Ctx{}
		ex.User = c
	}
	c.reset(a, ex)
	defer c.finish()
	defer func() {
		if r := recover(); r != nil {
			a.logError(c, "gwist: error handler panic answering a 503", slog.Any("panic", r))
			ex.Header.Reset()
			ex.Status = http.StatusServiceUnavailable
			_ = ex.Header.Set("Content-Type", "text/plain; charset=utf-8")
			ex.Body = append(ex.Body[:0], "Service Unavailable\n"...)
		}
	}()
	c.answerError(&HTTPError{Code: http.StatusServiceUnavailable, Message: "server busy, retry later", Err: ErrServerBusy})
	a.checkHeaders(c)
}

// ErrServerBusy is wrapped by the 503 *HTTPError the error handler gets
// for a request the worker pool had no room for (WithWorkers). That
// answer is made on the event loop: an error handler must not block.
var ErrServerBusy = errors.New("gwist: all workers busy")
