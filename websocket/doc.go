// Package websocket is a sans-I/O WebSocket protocol (RFC 6455) with
// permessage-deflate (RFC 7692): bytes in, events and bytes out. It owns
// no socket, starts no goroutine and keeps no timer; the engine drives it.
//
// Notes for the engine's driver (changes to exported signatures are
// listed here first): no signature of the agreed API has changed. Two
// points of behaviour to build on: Feed returns after each frame that
// completes an event (one event at most per Feed, so n < len(b) with
// whole frames left is normal: call Next, then Feed the rest), and Feed
// unmasks in place in the slice it is given. Added beyond the agreed API:
// NewDeflater(p, client), Deflater.AppendMaskedMessage and Release,
// AppendHeader, ClosePayload, ParseDeflateResponse, Reader.Idle, Reset,
// Closed, InMessage and Buffered, Opcode.IsControl, the Default* limits,
// MaxControlPayload and MaxCloseReason.
//
// # Threading
//
// A [Reader] has one owner that makes every call (the connection's event
// loop). It is not safe for concurrent use, and neither is a [Deflater].
// The Append* functions and the handshake helpers are pure.
//
// # Reading
//
//	r := websocket.NewReader(websocket.Config{}) // server role, default limits
//	// For each read: feed the buffered input, keep what Feed left.
//	for len(in) > 0 {
//		n := r.Feed(in)
//		in = in[n:]
//		ev, ok := r.Next()
//		if !ok {
//			break // n == 0: Feed needs more input (or stopped: see Err, Closed)
//		}
//		switch ev.Kind {
//		case websocket.EventMessage: // ev.Opcode, ev.Payload (copy it to keep it)
//		case websocket.EventPing:    // answer: AppendFrame(out, OpPong, true, ev.Payload)
//		case websocket.EventPong:
//		case websocket.EventClose:   // echo AppendClose(out, ev.Code, ""), then close
//		}
//	}
//	if err := r.Err(); err != nil {
//		out = websocket.AppendClose(out, err.Code, err.Reason) // then close
//	}
//
// Feed returns after each frame that completes an event; Next returns
// that event once. Feed also stops before an incomplete frame header
// (leaving at most 14 bytes for the caller to keep and feed again with
// more input), and consumes nothing after a protocol error or the peer's
// close frame. Payload bytes are consumed as they arrive, also those of
// an incomplete frame.
//
// # Ownership of Event.Payload
//
// Feed unmasks the payload bytes it consumes in place, in the slice it is
// given. An event's Payload points either into that slice (a message or
// control frame that arrived whole in one Feed: no copy) or into the
// Reader's own buffer (a message of several frames or reads, an inflated
// message, a control frame split over reads). Either way it is valid until
// the next call to Feed, and, in the first case, only while the caller
// leaves its input unmodified. Event.Reason is a copy.
//
// # Rules enforced
//
// A violation stops the Reader; [Reader.Err] gives the close code and a
// reason:
//
//   - 1002 CloseProtocolError: an unmasked frame from a client (server
//     role) or a masked one from a server (client role); RSV2 or RSV3 set;
//     RSV1 set without permessage-deflate, or on a control or continuation
//     frame; a reserved opcode (3-7, 11-15); a control frame without FIN or
//     with more than 125 bytes; a continuation frame with no message to
//     continue; a text or binary frame inside an unfinished message; a
//     length not in its minimal encoding (16-bit below 126, 64-bit below
//     65536: RFC 6455 section 5.2 says "the minimal number of bytes MUST be
//     used") or a 64-bit length with its top bit set; a close frame with a
//     one-byte payload or a code that [ValidCloseCode] rejects.
//   - 1007 CloseInvalidPayload: a text message that is not UTF-8, found at
//     the first byte that cannot be part of a valid sequence, also inside a
//     frame or a fragment (a sequence cut by a fragment boundary waits for
//     the next fragment); a close reason that is not UTF-8; compressed data
//     that does not inflate.
//   - 1009 CloseMessageTooBig: a data frame over Config.MaxFrame, or a
//     message over Config.MaxMessage, seen from the frame header before
//     the payload is buffered; a compressed message whose inflated size
//     passes MaxMessage, stopped as inflation passes it.
//
// Control frames may arrive between the fragments of a message. An empty
// close frame reports CloseNoStatus. After the peer's close frame the
// Reader reads nothing more.
//
// # Defaults
//
// MaxFrame: 1 MiB ([DefaultMaxFrame]); MaxMessage: 4 MiB
// ([DefaultMaxMessage]). A zero Config reads as a server without
// extensions.
//
// # Memory
//
// A Reader is one allocation: 272 bytes on amd64 (unsafe.Sizeof; a
// 125-byte array for a control frame split over reads included), 288 with
// the allocator's size class. Between messages it holds no
// buffer: a message assembled from several frames or reads takes a buffer
// from size-class pools (1 KiB to 64 KiB) that grows by doubling with the
// bytes that arrive, never with a length a header announces, and never
// past MaxMessage; it goes back to the pool at the Feed after its event.
// A message that arrives whole in one frame and one Feed is not copied.
//
// permessage-deflate: a server's inflater takes a pooled flate reader
// only while a message inflates; with client context takeover it keeps
// the last 32 KiB inflated (2^client_max_window_bits when negotiated) per
// connection as the next message's dictionary: a Reader is then about
// 33 KiB after its first compressed message, about 550 bytes with
// client_no_context_takeover, 1.6 KiB with client_max_window_bits=10. A
// [Deflater] with context takeover holds a compress/flate Writer per
// connection (0.7-1.2 MB: see [Deflater]); without it
// (server_no_context_takeover) the Writer is pooled and taken per message. For many
// connections, offer DeflateConfig{ServerNoContextTakeover: true,
// ClientNoContextTakeover: true}.
//
// # Writing
//
// [AppendFrame] (server frames, unmasked), [AppendMaskedFrame] (client
// frames), [AppendClose] and [Deflater.AppendMessage] append whole frames
// to a buffer; the caller writes it.
//
// # Handshake
//
// [AcceptKey], [ValidClientKey], [HeaderTokens], [SelectSubprotocol] and
// [NegotiateDeflate] are the pieces of the RFC 6455 opening handshake that
// do not need the request; the engine checks the method, Upgrade,
// Connection and Sec-WebSocket-Version headers.
//
// # Tests
//
// The tests follow the Autobahn testsuite's case groups, at the level of
// one Reader (no socket), each input fed whole and one byte at a time:
// 1 framing, 2 pings and pongs, 3 reserved bits, 4 opcodes,
// 5 fragmentation, 6 UTF-8 (fail-fast included), 7 close handling,
// 9 limits, 12 and 13 permessage-deflate; with RFC 6455 section 5.7 and
// RFC 7692 section 7.2.3 byte vectors, and fuzz targets. Not covered
// here: group 10 (auto-fragmentation: the writer sends what it is given)
// and everything that needs a connection (timing, the close handshake's
// exchange, closing the TCP connection), which the engine's tests cover.
package websocket
