package gwist

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// readyCheckTimeout bounds one run of the readiness checks: a probe that
// hangs is as bad for a balancer as a failing one.
const readyCheckTimeout = 2 * time.Second

// readyCheck is one named readiness check.
type readyCheck struct {
	name  string
	check func(context.Context) error
}

// Livez answers a liveness probe: 200 "ok" for as long as the process
// serves requests, draining included (a balancer or orchestrator that sees
// it fail restarts the process; a drain is not a reason to). Mount it with
// app.GET("/livez", gwist.Livez).
func Livez(c *Ctx) error {
	c.SetHeader("Cache-Control", "no-store")
	return c.String(http.StatusOK, "ok\n")
}

// Readyz answers a readiness probe: 200 "ok" while the App is ready, and
// 503 from the moment Shutdown begins ("draining") or while a check added
// with AddReadinessCheck fails ("not ready: NAME: ERROR"). A load balancer
// that polls it stops sending new work before the listeners close (give it
// the time with WithDrainDelay). The checks run on each probe, one after
// another, within 2 s in all, on the goroutine that runs the handler: with
// WithInline(true) a check must not block. Mount it with
// app.GET("/readyz", app.Readyz).
func (a *App) Readyz(c *Ctx) error {
	c.SetHeader("Cache-Control", "no-store")
	if a.draining.Load() {
		return c.String(http.StatusServiceUnavailable, "draining\n")
	}
	if len(a.readyChecks) > 0 {
		ctx, cancel := context.WithTimeout(c.Context(), readyCheckTimeout)
		defer cancel()
		for _, rc := range a.readyChecks {
			if err := rc.check(ctx); err != nil {
				return c.String(http.StatusServiceUnavailable, fmt.Sprintf("not ready: %s: %v\n", rc.name, err))
			}
		}
	}
	return c.String(http.StatusOK, "ok\n")
}

// AddReadinessCheck adds a check that Readyz runs on every probe; the App is
// not ready while it returns an error (a database out of reach, a cache
// still warming). The context carries the probe's deadline. Add checks
// before Start.
func (a *App) AddReadinessCheck(name string, check func(ctx context.Context) error) {
	a.mustNotBeFrozen()
	a.readyChecks = append(a.readyChecks, readyCheck{name, check})
}

// Ready reports whether the App is serving and no Shutdown has begun. It
// does not run the readiness checks.
func (a *App) Ready() bool {
	a.mu.Lock()
	started := len(a.servers) > 0
	a.mu.Unlock()
	return started && !a.draining.Load()
}

// Draining returns a channel that is closed when Shutdown closes the
// listeners (after the WithDrainDelay delay). A handler that would
// otherwise run until its client leaves (a long poll, a stream of its own)
// should select on it and end, so the drain can finish instead of being
// cut at the Shutdown deadline; its client reconnects, to another instance
// behind a balancer. Ctx.SSE streams and SSE feeds end by themselves.
func (a *App) Draining() <-chan struct{} { return a.drained }

// ShutdownError is what Shutdown returns when its context ended before
// every connection had finished: Cut connections were closed with work in
// flight (their requests' contexts cancelled) or before they could be
// closed gracefully. Err is the context's error (errors.Is works through
// it).
type ShutdownError struct {
	Cut int
	Err error
}

func (e *ShutdownError) Error() string {
	return fmt.Sprintf("gwist: shutdown closed %d unfinished connection(s): %v", e.Cut, e.Err)
}

// Unwrap returns the context's error.
func (e *ShutdownError) Unwrap() error { return e.Err }
