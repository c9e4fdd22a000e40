// Package engine runs gwist's HTTP servers on gnet event loops: it is the
// reactor layer under the root package, which is gwist's API. Its exported
// names exist for the root package; they carry no compatibility promise
// for direct use.
//
// It is the only package that imports gnet. It owns the listening socket
// (listener.go: an accept goroutine that survives every accept error,
// sheds load at the connection cap with 503s, shed.go), the connections'
// state on their loops, the timers (gnet has none), the dispatch of
// requests to a bounded worker pool (workers.go) or inline on the loop,
// the write-back of responses and the graceful drain. Protocol work is
// the sans-I/O packages': http1, http2, websocket, tlsstate, proxyproto.
//
// # Two seams
//
// The loop's side of a connection meets its protocol at one interface,
// protocol (driver.go). The lifecycle (conn.go, with tls.go, io.go,
// readpause*.go, drainwatch.go, writetimeout.go, drain.go, memrelease.go
// and the write side a worker may hold, direct.go and outbound.go) owns
// the socket and hands plaintext to a driver: HTTP/1 (h1driver.go, with
// batch.go, parsers.go, inbody.go, h1stream.go), HTTP/2 (h2driver.go,
// with h2stream.go, h2share.go, h2body.go, h2bodytimer.go, h2detached.go,
// h2upgrade.go), WebSocket (wsdriver.go, with wsconn.go, wsevents.go,
// wsflood.go, wstransport.go, wsh2.go, wsupgrade.go, wshub.go), and the
// small ones that come before them (proxy.go's PROXY header, shed.go).
//
// The handler's side meets it at another, responder (responder.go): an
// Exchange's Write, Flush, AbortStream, Detach, SendFile and
// UpgradeWebSocket go through the responder of the way it is answered
// (h1Worker, inlineResponder, *h2Stream, *sinkState), and its streamed
// request body through one pipe (bodypipe.go) whichever protocol fills
// it. Work done off the loop reaches the loop by one hand-off
// (handoff.go).
//
// # Three paths
//
// An HTTP/1 request on a worker (9 files, one crossing each way, or none
// back when the worker writes the response itself):
//
//	server.go onTraffic → conn.go → h1driver.go serve (parsers.go, http1) → dispatch,
//	submitBuilding → direct.go canWriteDirect → workers.go submit
//	  ⇒ worker: workers.go drain → batch.go runBatch → Server.serve → the handler →
//	    responder.go Write (h1Worker) → exchange.go appendResponse → direct.go writeDirect
//	    (the socket) → settle
//	  ⇒ loop, when it next looks: h1driver.go collectSettled, collect
//
// An HTTP/2 response a handler streams (9 files; each Flush hands over
// once, with the connection's other ready streams, and comes back only
// when the handler must wait for the peer):
//
//	worker: responder.go Flush → h2stream.go flush, sendBody (h2outbuf.go queueBody:
//	  the body buffer goes round, out.body → pend → spare; a file's bytes are
//	  read straight into out.body: responder.go SendFile → h2file.go sendFile) →
//	  h2ready.go markReady
//	(handoff.go post, once per connection while its streams wait)
//	  ⇒ loop: h2ready.go, for every ready stream: h2stream.go collect, sendHead, pump
//	    (http2 WriteHeaders, LendData: framed from the buffer itself, which is
//	    the spare once framed whole, h2outbuf.go reclaimLent) →
//	    h2driver.go output (http2 Output, framed into conn.out, written every 60 KiB) →
//	    conn.go finishCallback → io.go writeWire
//	  ⇒ worker, while more than Config.MaxStreamQueued waits: woken by pump
//
// A WebSocket message echoed by a callback on a worker (8 files, one
// crossing to the worker; none back over plaintext HTTP/1.1, where the
// loop grants the worker the write side, one back otherwise):
//
//	server.go onTraffic → conn.go → wsdriver.go serve, process (websocket.Reader),
//	event → wsevents.go queueMessage, queue (wsdirect.go grantWireLocked),
//	startCallbacks (a message of up to 104 bytes into the batch) → workers.go submit
//	  ⇒ worker: batch.go runBatch → wsevents.go runCallbacks → OnMessage →
//	    wsconn.go WriteMessage (framed on the writer's stack) → wsdirect.go sendDirect (the socket)
//	  ⇒ loop, only over TLS or HTTP/2, or when the socket is full: handoff.go post →
//	    wsconn.go wsFlush, flushOut → conn.go finishCallback → io.go writeWire
//
// # Threading
//
//   - A connection's state is touched only on its event loop; loop-only
//     code asserts it in test builds (the gwistcheck tag, loopcheck_on.go).
//   - Batches are pooled: nothing may touch one after its release. A task
//     still queued for the loop when it is released must not reach it (a
//     grantReq checks its batch is still its connection's; a Detached drops
//     its batch when it finishes, and its late flushes do nothing). Test
//     builds check that a batch taken from the pool is free and that none
//     is released twice (batch.go).
//   - A worker touches only the Exchange it was handed, and reaches the
//     loop through a hand-off (handoff.go) or a batch's return. The one
//     exception is the write side: a worker writes (and, over TLS,
//     encrypts) its own output to the fd under conn.wmu while the loop has
//     granted it that side, for a direct batch (direct.go), a streamed
//     HTTP/1 response (outbound.go) or a WebSocket's callbacks
//     (wsdirect.go); meanwhile the loop queues everything
//     else of the connection behind it. A TLS handshake goroutine writes
//     its flights the same way (tls.go). This, and the read pause in
//     gnet's epoll set, reach past gnet's API: gnetreach*.go hold every
//     such reach, each with a start-up self-test that turns it off (the
//     loop then writes everything, outbound_loop.go) when gnet differs.
//   - What is shared between a loop and a worker is named and locked: a
//     request body's pipe, an HTTP/2 stream's outbox (h2Out, under the
//     stream's mu), a detached response's and a WebSocket's queued output.
//   - The accept goroutine touches no connection: gnet registers the socket
//     on its loop (on Linux a task queued there by the raw accept,
//     gnetreach_accept_linux.go), and onOpen runs there. The place the
//     connection takes under the ConnLimit is taken by the accept goroutine
//     before the hand-off and given back by the loop.
//   - The loops may be shared by several servers (loopgroup.go: an App's
//     listeners), so that together they leave a P free: while loops hold
//     every P, the accept goroutine, woken by Go's netpoller, waits for the
//     runtime to take one back. A server's connections are its own on
//     shared loops: its drain, and its cut, close only them (drain.go).
//   - Buffers from gnet (Peek) are valid only during the callback; parsers
//     copy what a request needs, and body bytes are copied into their pipe
//     before the callback ends.
//
// # Tests
//
// Besides the end-to-end tests of the root package (real sockets, real
// clients), engine has a harness (harness_test.go): a never-started Server
// driven from the test goroutine as its loop, over socket pairs behind a
// fake gnet.Conn, with the clocks set by the test, so that timers and
// state machines are tested in-process and without sleeping.
package engine
