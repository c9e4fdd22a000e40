package gwist

import (
	"reflect"
	"sync"
)

// The App advertises RFC 8441 (WebSocket over HTTP/2) only when one of its
// routes can answer it, so it must tell WebSocket's handlers from others.
// A HandlerFunc cannot be compared, so they are told apart by their code
// pointer: WebSocket returns a method value of wsRoute, and a method
// value's code is its method's wrapper whatever the call site (a
// closure's may be a copy per inlined call). reflect documents that
// Pointer need not identify a function uniquely; this is a reach past
// what Go promises, verified with Go 1.26, checked once at start-up
// (wsRouteMarkWorks), and when it fails RFC 8441 is advertised whenever
// HTTP/2 is on (a CONNECT to a route that is not a WebSocket route is then
// refused by the router).

// wsRoute is WebSocket's handler.
type wsRoute struct{ h *WSHandler }

func (r *wsRoute) serve(c *Ctx) error { return c.WebSocket(r.h) }

// wsRoutePC is the code of the handlers WebSocket returns.
var wsRoutePC = reflect.ValueOf((&wsRoute{}).serve).Pointer()

// isWebSocketRoute reports whether h was made by WebSocket.
func isWebSocketRoute(h HandlerFunc) bool { return reflect.ValueOf(h).Pointer() == wsRoutePC }

// wsRouteMarkWorks is the start-up self-test: a handler made by WebSocket
// is recognised and another handler is not.
var wsRouteMarkWorks = sync.OnceValue(func() bool {
	other := func(*Ctx) error { return nil }
	return isWebSocketRoute(WebSocket(&WSHandler{})) && !isWebSocketRoute(other)
})

// mayAnswerExtendedConnect reports whether an App with route handler h
// advertises RFC 8441 over HTTP/2.
func mayAnswerExtendedConnect(h HandlerFunc) bool {
	return !wsRouteMarkWorks() || isWebSocketRoute(h)
}
