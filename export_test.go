package gwist

import "github.com/gwist/gwist/engine"

// ServeExchange runs one request through the App's own serve path (routing,
// middleware, handler, error handling) without the engine, for the
// whole-request benchmarks of the external test package.
func (a *App) ServeExchange(ex *engine.Exchange) {
	a.freeze()
	a.serve(ex)
}
