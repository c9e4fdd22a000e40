// Package http2 is a sans-I/O HTTP/2 server connection (RFC 9113): bytes
// in, events and bytes out. It owns no socket, starts no goroutine and
// keeps no timer; frames are read and written with golang.org/x/net/http2's
// Framer and header blocks with golang.org/x/net/http2/hpack.
//
// # Threading
//
// A [Conn] has one owner (the engine's event loop) that makes every call.
// It is not safe for concurrent use. Handlers on other goroutines never
// touch it: the owner passes their request bodies out and their responses
// in.
//
// # Using a Conn
//
//	c := http2.NewConn(cfg, now)        // server SETTINGS queued
//	// For each read: feed the buffered input, drop what Feed used.
//	n := c.Feed(in)                     // whole frames only; keep in[n:]
//	for ev, ok := c.Next(); ok; ev, ok = c.Next() {
//		switch ev.Kind {
//		case http2.EventRequest:   // ev.Request: start a handler; Release(id) when it returns
//		case http2.EventData:      // copy ev.Data (valid until the next Feed); Consumed(id, n) as it is read
//		case http2.EventTrailers:  // request trailers; the body is complete
//		case http2.EventReset:     // cancel the handler (still Release)
//		case http2.EventWritable:  // the stream may WriteData again
//		case http2.EventGoAway:    // the peer opens no more streams
//		}
//	}
//	// Responses, on the owner, from what handlers produced:
//	c.WriteHeaders(id, 200, fields, false)
//	k, _ := c.WriteData(id, body, true) // takes up to Writable(id); the rest after EventWritable
//	// or c.LendData(id, body, true): no copy; leave body[:k] alone until !c.Lent(id)
//	c.WriteTrailers(id, trailers)       // or end with WriteData(id, nil, true)
//	c.Release(id)
//	// Then write what is due, within the transport's room:
//	out = c.Output(out[:0], room)
//	if c.Finished() { /* write out, then close */ }
//
// Feed stops after a frame that queued an EventData (its Data points into
// the frame buffer the next Feed reuses): drain Next, then Feed the rest
// of the input. Call Output after every Feed and write call, and Next
// after Output (EventWritable). Tick(now) enforces the preface deadline
// and sends the deferred resets (below); Shutdown starts a graceful
// GOAWAY.
//
// h2c: [IsPreface] recognises the client preface on a plaintext
// connection (prior knowledge). For `Upgrade: h2c`, the owner writes
// [UpgradeResponse], calls [Conn.Upgrade] with the HTTP2-Settings value
// and answers the upgrading request (already parsed as HTTP/1.1) on
// stream 1, then feeds the bytes that follow (the client preface first).
//
// # Requests
//
// An EventRequest carries a [Request]: pseudo-fields, regular fields in
// lowercase, Host and ContentLength, validated as RFC 9113 section 8 says
// (pseudo-fields known, once each and first; :method, :scheme and :path
// present and the path absolute or "*" for OPTIONS; CONNECT with only
// :authority; lowercase names; no connection-specific fields; TE only
// "trailers"; values without CR, LF, NUL or surrounding whitespace;
// content-length well formed and matching the DATA received). A malformed
// request is a stream error (RST_STREAM PROTOCOL_ERROR) and never reaches
// the application. Several "cookie" fields are joined into one with "; "
// (RFC 9113 section 8.2.3). [Request.FillHTTP1] turns it into an
// http1.Request so handlers see one request type.
//
// A response that ends while its request body still arrives is followed by
// RST_STREAM NO_ERROR (RFC 9113 section 8.1) at the second Tick after,
// never in the output that ends the response: curl 7.88 shows no response
// at all when both arrive in one read.
//
// # Flow control
//
// Receive windows (StreamWindow and ConnWindow, 1 MiB each) are refilled
// only as the application calls [Conn.Consumed] (or [Conn.Release] gives
// back unread bytes): a handler that does not read stops its peer after a
// window, and the unread request body on a connection never passes
// ConnWindow. A WINDOW_UPDATE goes out once half a window is owed.
//
// Response DATA is copied into a per-stream queue (MaxStreamQueued, 64 KiB)
// under a connection cap (MaxConnQueued, 256 KiB), except that a stream may
// always queue one frame's worth (16 KiB); [Conn.Writable] is the room
// left and EventWritable says it is back. Output frames control frames and
// HEADERS first, then DATA one frame (at most 16 KiB) per stream in turn,
// within the peer's windows and the caller's byte budget, so a large
// download does not starve a small response; when the transport is full,
// [Conn.OutputSmall] sends the heads and the small bodies (a stream
// holding at most 4 KiB) alone.
//
// # Limits and defences
//
// Defaults are the Default* constants; zero Config fields take them.
//
//   - MaxConcurrentStreams (250), advertised: a stream beyond the open
//     streams or beyond the requests whose handlers are not yet released
//     (a reset stream keeps its slot until Release) is refused with
//     RST_STREAM REFUSED_STREAM.
//   - MaxResetScore (200): streams reset before their response ended (by
//     the client, CVE-2023-44487 "rapid reset"; by the server after the
//     client's protocol error, "MadeYouReset"), and streams refused while
//     handler slots are held, count up; completed streams count down.
//     Past the limit: GOAWAY ENHANCE_YOUR_CALM.
//   - MaxHeaderListSize (16 KiB, advertised): a larger request header
//     section is answered 431 by the connection itself (the HPACK state is
//     kept); larger trailers reset the stream (PROTOCOL_ERROR).
//   - Header block cap, 2 x MaxHeaderListSize + MaxFrameSize + 9 encoded
//     bytes over HEADERS and CONTINUATION, 9 bytes counted per frame
//     (CVE-2023-45288): GOAWAY ENHANCE_YOUR_CALM, without decoding the rest.
//   - MaxFrameSize (16 KiB, advertised): a larger frame is GOAWAY
//     FRAME_SIZE_ERROR, seen from its 9-byte header, before its payload is
//     buffered; Feed never needs more than NeedBytes of input.
//   - MaxControlQueued (10,000): answers to the peer (SETTINGS and PING
//     ACKs, RST_STREAM) and other frames queued but not taken by Output;
//     one more is a flood: GOAWAY ENHANCE_YOUR_CALM.
//   - MaxIdleFrames (10,000): frames in a row that do nothing for the
//     application (empty DATA not ending a stream, WINDOW_UPDATE,
//     PRIORITY, PING, SETTINGS, unknown types; a request, request body
//     bytes or response DATA sent reset the count): GOAWAY
//     ENHANCE_YOUR_CALM (empty-frame, WINDOW_UPDATE and PRIORITY floods).
//   - SETTINGS with more than 100 entries: GOAWAY PROTOCOL_ERROR. Repeated
//     entries are applied in order, as RFC 9113 section 6.5.3 requires.
//   - PrefaceTimeout (10 s): PrefaceDeadline; past it, Tick fails the
//     connection (closed without GOAWAY).
//   - The HPACK encoder's table is capped at 4 KiB whatever the peer's
//     SETTINGS_HEADER_TABLE_SIZE; the decoder's is the default 4 KiB.
//
// Connection errors queue GOAWAY with the error code and the last stream
// id, drop everything else queued, and make Finished true once Output has
// returned the GOAWAY. Stream errors send RST_STREAM, free the stream's
// queued output and, if its request was delivered, report EventReset.
// PRIORITY frames are parsed and ignored (a self-dependency is a stream
// error); unknown frame types are ignored; PUSH_PROMISE from a client is a
// connection error; the server never pushes.
//
// # Memory
//
// An idle connection holds its maps and HPACK tables only: the frame
// reader and writer (whose buffers grow to the largest frame) are dropped
// when no stream is active and made again on demand.
package http2
