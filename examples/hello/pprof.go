package main

import (
	"net/http"
	"net/http/pprof"

	"github.com/gwist/gwist"
)

// debugRoutes mounts net/http/pprof under /debug/pprof/ through
// gwist.WrapHandler: the index, the named profiles (heap, goroutine,
// allocs, block, mutex, threadcreate), cmdline, symbol, and the CPU
// profile and execution trace (?seconds=N). The last two hold their
// handler for N seconds: on an inline App that would stall an event loop,
// so there they answer 501.
func debugRoutes(app *gwist.App, inline bool) {
	app.GET("/debug/pprof/*name", gwist.WrapHandlerFunc(pprof.Index))
	app.GET("/debug/pprof/cmdline", gwist.WrapHandlerFunc(pprof.Cmdline))
	app.GET("/debug/pprof/symbol", gwist.WrapHandlerFunc(pprof.Symbol))
	app.POST("/debug/pprof/symbol", gwist.WrapHandlerFunc(pprof.Symbol))
	timed := func(h http.HandlerFunc) gwist.HandlerFunc {
		if inline {
			return func(c *gwist.Ctx) error {
				return gwist.NewHTTPError(501, "profiles over time need the worker pool (run without -inline)")
			}
		}
		return gwist.WrapHandler(h)
	}
	app.GET("/debug/pprof/profile", timed(pprof.Profile))
	app.GET("/debug/pprof/trace", timed(pprof.Trace))
}
