// Package http1 is a sans-I/O HTTP/1.1 server codec: an incremental, strict
// (RFC 9112) request parser and a response serializer.
//
// The package owns no sockets and starts no goroutines. The caller feeds the
// bytes it read from a connection to [Parser.Parse], which fills a reusable
// [Request] and reports how many bytes it used and what it reached: the end
// of a request head ([HeadComplete], when a body follows) or of a whole
// request ([MessageComplete]). Responses are built with [AppendHead],
// [AppendChunk], [AppendLastChunk], [AppendContinue] and [AppendError], which
// append to a caller's buffer and allocate nothing. A body streamed as it
// is produced is framed as [ResponseHead.Framing] says: raw bytes after a
// Content-Length, chunks ([AppendChunkHeader] or [AppendChunk], then
// [AppendLastChunk] with any trailers), or bytes until the connection closes
// for an HTTP/1.0 client.
//
// A request body is accumulated into Request.Body by default. A caller that
// wants it as it arrives calls [Parser.StreamBody] at HeadComplete: Parse
// then returns [BodyData] events whose bytes ([Parser.Data]) point into the
// caller's buffer, and keeps nothing of them (see streambody.go).
//
// # Memory
//
// A Request owns a copy of its head and body. Its strings and slices point
// into that copy, so they stay valid only until [Request.Reset] (or until the
// Request is parsed into again); copy anything that must outlive it, for
// example with strings.Clone. In steady state, parsing into a reused Request
// allocates nothing.
//
// # Strictness
//
// The parser follows RFC 9112 strictly: every framing or limit violation is
// an [*Error] carrying the status to answer with before closing the
// connection (400, 413, 414, 417, 431, 501 or 505). Choices where the RFCs
// leave room:
//
//   - Up to four empty lines (CRLF) before a request line are skipped; a
//     fifth is an error.
//   - Lines must end in CRLF: a bare LF or bare CR is a 400.
//   - HTTP/1.2 to HTTP/1.9 are treated as HTTP/1.1 (ProtoMinor 1), as RFC
//     9110 section 2.5 suggests; other majors (0, 2 to 9) are a 505.
//   - CONNECT is not supported and answered with 501.
//   - An absolute-form target must use the http or https scheme, have a
//     non-empty authority and no userinfo.
//   - A request-target may contain any visible ASCII byte (0x21 to 0x7E);
//     the URI grammar is not checked beyond its form.
//   - The Host value must look like uri-host [":" port].
//   - Transfer-Encoding: only "chunked", once, last; anything else is a
//     501 (as is chunked applied twice).
//
// Limits (see [Limits]) are checked as soon as the bytes seen so far exceed
// them, even when the head is still incomplete. The parser gives the same
// result whether a request arrives in one buffer or split at any byte.
package http1
