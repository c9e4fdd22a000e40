//go:build unix

package engine

import (
	"crypto/tls"
	"os"
	"time"
)

// The handler's side of the seam. The loop side of a connection meets its
// protocol at one interface (driver.go); so does the handler's side: an
// Exchange reaches the protocol that carries its response only through its
// responder, which each way of answering implements:
//
//	h1Worker        HTTP/1, the handler on a worker (h1stream.go, the
//	                batch's direct write, detached.go, sendfile.go)
//	inlineResponder HTTP/1, the handler on the loop (Config.Inline)
//	*h2Stream       HTTP/2 (h2stream.go, h2detached.go, wsh2.go)
//	*sinkState      an Exchange from outside the loop (sink.go)
//
// The Exchange's methods (Write, Flush, Streaming, AbortStream, Detach,
// SendFile, UpgradeWebSocket, ...) are written once against it; nothing
// outside the drivers asks which protocol an Exchange came on.

// responder is an Exchange's protocol as its handler sees it. Its methods
// run on the handler's goroutine.
type responder interface {
	// streamAt is the body size past which the response streams (the head
	// goes out and the body follows as it is written); 0: never (the
	// handler runs on the loop).
	streamAt() int
	// flush sends the head, if not yet sent, and what ex.Body holds; the
	// response streams from then on. It blocks while too much waits for
	// the client.
	flush(ex *Exchange) error
	// write sends p, the response streaming.
	write(ex *Exchange, p []byte) (int, error)
	// streaming: the head has gone out.
	streaming() bool
	// abort: the streamed response cannot be completed; the client must
	// see it cut off, never complete.
	abort()
	// detach hands the rest of the response to a Detached.
	detach(ex *Exchange, idleEvery time.Duration, idle []byte) (*Detached, error)
	// upgradeWS makes the exchange a WebSocket once its handler returns.
	upgradeWS(ex *Exchange, up WSUpgrade) (*WSConn, error)
	// sendFile sends n bytes of f from off as body, or fails with
	// ErrNoSendfile having sent nothing.
	sendFile(ex *Exchange, f *os.File, off, n int64) error
	// sink is the Sink state of an Exchange from outside the loop, nil
	// for the loop's.
	sink() *sinkState
}

// respond is ex's responder: an Exchange made outside the engine's paths
// (a benchmark's) answers as an inline one without a connection.
func (ex *Exchange) respond() responder {
	if r := ex.resp; r != nil {
		return r
	}
	return (*inlineResponder)(nil)
}

// Write appends p to the response body. Once the body passes the stream
// threshold (Config.StreamThreshold on a worker), or after Flush, the
// response streams: Write sends p (framed) and blocks while more than
// Config.MaxStreamQueued of it waits for a slow client; it fails once the
// client is gone.
func (ex *Exchange) Write(p []byte) (int, error) {
	r := ex.respond()
	if r.streaming() {
		return r.write(ex, p)
	}
	ex.GrowBody(len(p))
	ex.Body = append(ex.Body, p...)
	if at := r.streamAt(); at > 0 && len(ex.Body) > at {
		if err := r.flush(ex); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// WriteString is Write with a string.
func (ex *Exchange) WriteString(s string) (int, error) {
	r := ex.respond()
	if r.streaming() {
		return r.write(ex, []byte(s))
	}
	ex.GrowBody(len(s))
	ex.Body = append(ex.Body, s...)
	if at := r.streamAt(); at > 0 && len(ex.Body) > at {
		if err := r.flush(ex); err != nil {
			return 0, err
		}
	}
	return len(s), nil
}

// Flush sends the head, if not yet sent, and the body written so far,
// without waiting for the client to read it (Write blocks once too much is
// queued). On an Inline server it returns ErrInlineStreaming and sends
// nothing.
func (ex *Exchange) Flush() error { return ex.respond().flush(ex) }

// Streaming reports whether the response's head has been sent: Status,
// Header and Body then no longer change what the client gets.
func (ex *Exchange) Streaming() bool { return ex.respond().streaming() }

// CanStream reports whether the response can stream: on a worker, or
// through a sink. Inline handlers on the loop cannot.
func (ex *Exchange) CanStream() bool { return ex.respond().streamAt() > 0 }

// AbortStream marks a streamed response as failed: it is cut off, so the
// client sees it truncated, never complete (HTTP/1: no last chunk and the
// connection closes; HTTP/2: RST_STREAM INTERNAL_ERROR instead of
// END_STREAM). It does nothing before the head is sent.
func (ex *Exchange) AbortStream() { ex.respond().abort() }

// Hangup abandons a response whose head has not gone out, where the
// protocol can do so without sending anything (net/http's answer to
// panic(http.ErrAbortHandler)): an HTTP/1 request whose handler runs on a
// worker gets no response at all, and its connection closes after the
// responses before it; an HTTP/2 stream is reset (RST_STREAM
// INTERNAL_ERROR) without a HEADERS frame. It reports false, and does
// nothing, once the head went out (see AbortStream) or where it cannot
// (Inline, a sink).
func (ex *Exchange) Hangup() bool {
	if h, ok := ex.respond().(interface{ hangup() bool }); ok {
		return h.hangup()
	}
	return false
}

// Detach turns a response that is streaming (or about to: it sends the
// head) into a detached one and returns it. The handler should return soon
// after; the returned Detached sends the rest of the body. Every idleEvery
// (if > 0) in which nothing was written, idle is sent as a body chunk (an
// SSE comment, say). It fails with ErrInlineStreaming on an Inline server,
// ErrDetach when the response cannot detach, or with the stream's error.
func (ex *Exchange) Detach(idleEvery time.Duration, idle []byte) (*Detached, error) {
	return ex.respond().detach(ex, idleEvery, idle)
}

// SendFile sends n bytes of f from offset off as the next part of the body,
// from the kernel's page cache to the socket without copying them through
// the process (sendfile(2)); over HTTP/2, whose frames are built in the
// process, the bytes are read straight into the stream's queue rather than
// through a buffer of the caller's (h2file.go). The response streams from
// then on (like Flush), with the same backpressure and errors as Write: it
// blocks while the socket is full, fails with ErrClientGone when the
// client left and with ErrBodyLength past the declared Content-Length. It
// returns ErrNoSendfile, having sent nothing itself, where it cannot be
// used; a file that turns out shorter than n fails the response
// (io.ErrUnexpectedEOF).
func (ex *Exchange) SendFile(f *os.File, off, n int64) error {
	return ex.respond().sendFile(ex, f, off, n)
}

// UpgradeWebSocket answers ex with "101 Switching Protocols" (or, for an
// HTTP/2 extended CONNECT, 200; ex.Header's fields, which must carry
// Sec-WebSocket-Accept and the negotiated protocol and extensions, are
// sent with it) once the handler returns; the connection (or the stream)
// then speaks WebSocket and up.Handler gets its events. The handler must
// return without writing a body. The returned WSConn may be kept (a hub,
// say) but nothing is written before OnOpen runs.
func (ex *Exchange) UpgradeWebSocket(up WSUpgrade) (*WSConn, error) {
	if up.Handler == nil || up.Config == nil {
		return nil, errUpgradeArgs
	}
	if ex.ws != nil {
		return ex.ws, nil
	}
	if ex.StreamedBody() {
		return nil, errUpgrade
	}
	ws, err := ex.respond().upgradeWS(ex, up)
	if err == nil {
		ex.ws = ws
	}
	return ws, err
}

// TLS returns the connection's TLS state (version, cipher suite, SNI
// server name, ALPN protocol, peer certificates and verified chains), or
// nil on a plaintext connection. Each call builds a new copy from the
// tls.Conn (one allocation; the state is not kept between requests, so an
// idle connection holds none of it). The certificate slices are shared
// with the connection: read them, do not change them. A sink Exchange
// returns the state it was made with.
func (ex *Exchange) TLS() *tls.ConnectionState {
	if s := ex.respond().sink(); s != nil {
		return s.tls
	}
	if ex.tlsc == nil {
		return nil
	}
	cs, ok := ex.tlsc.ConnectionState()
	if !ok {
		return nil
	}
	return &cs
}

// IsTLS reports whether the request came over TLS, without the cost of
// TLS (a sink Exchange: whether it was made with a TLS state).
func (ex *Exchange) IsTLS() bool {
	if s := ex.respond().sink(); s != nil {
		return s.tls != nil
	}
	return ex.tlsc != nil
}

// IsHTTP2 reports whether the request came on an HTTP/2 stream.
func (ex *Exchange) IsHTTP2() bool { return ex.Request.ProtoMajor == 2 }

// Protocol is an HTTP/2 extended CONNECT's :protocol (RFC 8441), "" for
// any other request.
func (ex *Exchange) Protocol() string { return ex.protocol }

// inlineResponder answers an HTTP/1 request on its connection's loop
// (Config.Inline): the response is sent whole when the handler returns;
// it cannot stream, detach or send a file, and a WebSocket upgrade
// switches the connection at once (h1driver.go). A nil one has no
// connection (an Exchange made outside the engine's paths).
type inlineResponder conn

func (r *inlineResponder) streamAt() int                                    { return 0 }
func (r *inlineResponder) flush(*Exchange) error                            { return ErrInlineStreaming }
func (r *inlineResponder) write(*Exchange, []byte) (int, error)             { return 0, ErrInlineStreaming }
func (r *inlineResponder) streaming() bool                                  { return false }
func (r *inlineResponder) abort()                                           {}
func (r *inlineResponder) sendFile(*Exchange, *os.File, int64, int64) error { return ErrNoSendfile }
func (r *inlineResponder) sink() *sinkState                                 { return nil }

func (r *inlineResponder) detach(*Exchange, time.Duration, []byte) (*Detached, error) {
	return nil, ErrInlineStreaming
}

func (r *inlineResponder) upgradeWS(ex *Exchange, up WSUpgrade) (*WSConn, error) {
	if r == nil || ex.Request.ProtoMinor != 1 {
		return nil, errUpgrade
	}
	return newWSConn((*conn)(r), up), nil
}
