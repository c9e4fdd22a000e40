//go:build unix

package engine

import "github.com/gwist/gwist/http2"

// A WebSocket's transport: the whole connection after an HTTP/1.1 upgrade
// (the connection's driver is the WebSocket's, wsdriver.go), or one HTTP/2
// stream after an extended CONNECT (RFC 8441, wsh2.go), whose DATA frames
// carry the WebSocket frames both ways under HTTP/2 flow control. The
// frame handling is the same; these say where the bytes come from and go.

// live: the transport is this WebSocket's and open. Loop only.
func (ws *WSConn) live() bool {
	if s := ws.h2s; s != nil {
		return s.ws == ws && s.sent != sentCut && !ws.isGone
	}
	return ws.c.proto == protocol((*wsDriver)(ws))
}

// readDone: nothing more is read (closing, or gone). Loop only.
func (ws *WSConn) readDone() bool {
	if ws.h2s != nil {
		return ws.inEnded || ws.isGone
	}
	return ws.c.closed || ws.c.readingStopped()
}

// input is the received bytes not yet fed to the frame reader.
func (ws *WSConn) input() []byte {
	if ws.h2s != nil {
		return ws.h2in
	}
	return ws.c.input()
}

// consume drops n bytes of input; over HTTP/2 they are credited back to
// the peer's window only now, so a WebSocket whose callbacks are behind
// holds at most a window of input.
func (ws *WSConn) consume(n int) {
	s := ws.h2s
	if s == nil {
		ws.c.consume(n)
		return
	}
	ws.h2in = ws.h2in[n:]
	if len(ws.h2in) == 0 {
		ws.h2in = nil
	}
	s.d.h2.Consumed(s.id, n)
}

// outBuf is where frames the loop writes go: c.out, or the stream's
// pending DATA.
func (ws *WSConn) outBuf() *[]byte {
	if s := ws.h2s; s != nil {
		return &s.pend
	}
	return &ws.c.out
}

// transportBacklog is what the transport holds for the peer: the loop's
// output and gnet's outbound buffer, or the stream's DATA not yet framed.
// Loop only.
func (ws *WSConn) transportBacklog() int {
	if s := ws.h2s; s != nil {
		return len(s.pend)
	}
	return len(ws.c.out) + ws.c.gc.OutboundBuffered()
}

// pumpOut frames what the stream may send now (HTTP/2); over HTTP/1,
// c.out is written at the end of the callback.
func (ws *WSConn) pumpOut() {
	if s := ws.h2s; s != nil && s.sent != sentCut {
		s.lastWrite = ws.c.srv.now()
		s.pump()
	}
}

// endTransport: the close handshake is over (or failed): the rest of the
// output goes, then the connection (or the stream, with END_STREAM)
// closes, and input is ignored. Loop only.
func (ws *WSConn) endTransport() {
	if s := ws.h2s; s != nil {
		ws.inEnded = true
		ws.h2in = nil
		if s.sent == sentHead {
			s.sent = sentEnding
			s.pump()
		}
		return
	}
	c := ws.c
	if c.closed { // a write that failed on the way closed it
		return
	}
	c.closeWhenDone()
	c.discardInput()
}

// abortTransport closes at once (no pong, no close frame in time). Loop only.
func (ws *WSConn) abortTransport() {
	if s := ws.h2s; s != nil {
		s.cut(http2.ErrCodeCancel, ErrClientGone)
		return
	}
	ws.c.abort()
}
