// Package engine runs gwist's HTTP servers on gnet event loops: it is the
// reactor layer under the root package, which is gwist's API. Its exported
// names exist for the root package; they carry no compatibility promise
// for direct use.
//
// It is the only package that imports gnet. It owns the listening socket,
// accepting on a goroutine of its own that survives every accept error and
// hands each socket to a gnet loop (listener.go), the per-connection state, the timers (gnet has no deadlines), the dispatch of
// requests to a bounded worker pool (or inline on the loop), the in-order
// write-back of responses and the graceful drain. Protocol work is delegated
// to the sans-I/O packages http1 (and, for HTTPS, tlsstate).
//
// Each connection is split at one seam (driver.go). Its lifecycle —
// conn.go, with tls.go, io.go, readpause*.go, writetimeout.go, drain.go and
// the write side a worker may hold (direct.go) — owns the socket and hands
// plaintext to a protocol driver, which turns it into Exchanges and their
// responses back into bytes. The HTTP/1 driver is h1driver.go, with its
// batches of pipelined requests (batch.go), its parsers (parsers.go), its
// streamed responses (stream.go, outbound.go) and streamed request bodies
// (inbody.go). The HTTP/2 driver is h2driver.go with its streams
// (h2stream.go): the sans-I/O http2.Conn on the loop, handlers on workers,
// responses handed back per stream and framed on the loop (a worker never
// writes to an HTTP/2 connection). A connection starts with the HTTP/1
// driver and switches once, after ALPN chose h2 or on the h2c preface. A
// third driver (an upgraded WebSocket) would implement the same interface.
//
// Threading rules, which every file here follows:
//   - A connection's state is touched only on its event loop.
//   - Workers touch only the Exchange they were handed and hand it back to
//     the loop with EventLoop.Execute. The one exception is the write side:
//     a worker writes (and, over TLS, encrypts) its own output to the fd
//     under conn.wmu while the loop has granted it that side, for a direct
//     batch (direct.go) or a streamed response (outbound.go); meanwhile the
//     loop queues everything else of the connection behind it. A TLS
//     handshake goroutine writes its flights the same way (tls.go). A
//     handler reading a streamed request body shares one object with the
//     loop, the body's buffer (inbody.go, under its own mutex), and reaches
//     the connection only through Execute (to resume reading, or to send
//     "100 Continue"). An HTTP/2 handler shares its stream's outbox with
//     the loop (h2stream.go, under the stream's mutex) and never writes to
//     the connection; a detached response (detached.go) is the same for a
//     handler that has returned.
//   - The accept goroutine touches no connection: gnet registers the socket
//     on its loop, and OnOpen runs there.
//   - Buffers from gnet (Peek) are valid only during the callback; the http1
//     parser copies what a request needs, and a streamed body's bytes are
//     copied into its buffer before the callback ends.
package engine
