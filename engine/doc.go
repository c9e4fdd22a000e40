// Package engine runs gwist's HTTP servers on gnet event loops.
//
// It is the only package that imports gnet. It owns the sockets, the
// per-connection state, the timers (gnet has no deadlines), the dispatch of
// requests to a bounded worker pool (or inline on the loop), the in-order
// write-back of responses and the graceful drain. Protocol work is delegated
// to the sans-I/O packages http1 (and, for HTTPS, tlsstate).
//
// Threading rules, which every file here follows:
//   - A connection's state is touched only on its event loop.
//   - Workers touch only the Exchange they were handed; they hand it back to
//     the loop with EventLoop.Execute, never by writing to the connection.
//   - Buffers from gnet (Peek) are valid only during the callback; the http1
//     parser copies what a request needs.
package engine
