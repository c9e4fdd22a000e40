//go:build unix

package engine

// WebSocket over HTTP/2 (RFC 8441): with http2.Config.EnableConnectProtocol
// the server advertises SETTINGS_ENABLE_CONNECT_PROTOCOL; an extended
// CONNECT (:protocol websocket) is dispatched to its route at once (its
// stream stays open), the handler's Ctx.WebSocket answers 200 through
// UpgradeWebSocket, and the stream's DATA carries the WebSocket frames
// both ways (wstransport.go): received bytes are credited to the peer's
// window only as the frame reader takes them, and the writers' cap counts
// the stream's bytes waiting for the peer's window.

// upgradeWS answers the extended CONNECT with 200 (ex.Header's fields)
// and makes the stream a WebSocket once the handler returns. Handler side.
func (s *h2Stream) upgradeWS(ex *Exchange, up WSUpgrade) (*WSConn, error) {
	if s.protocol == "" || s.flushed || s.det != nil {
		return nil, errUpgrade
	}
	ws := newWSConn(s.d.c, up)
	ws.h2s = s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return nil, s.err
	}
	ex.Status = 200
	s.setHead(ex, -1)
	s.wsUp = ws
	return ws, nil
}

// startWS runs on the loop once the 200 is framed and the handler has
// returned: the stream is the WebSocket's from now on.
func (s *h2Stream) startWS() {
	ws := s.wsUp
	s.ws = ws
	c := s.d.c
	ws.reader()
	now := c.srv.now()
	ws.lastRead, ws.lastData = now, now
	ws.openDone = true
	c.srv.wsconns.Add(1)
	ws.queue(wsEvent{kind: wsEvOpen}, nil)
	ws.h2in, s.early = s.early, nil
	if s.earlyEnd {
		ws.inEnded = true
	}
	ws.paused = !ws.process()
	if c.srv.draining.Load() {
		(*wsDriver)(ws).goAway()
	}
}

// onWSData takes DATA for an extended CONNECT stream: buffered (and not
// credited) until the WebSocket starts, fed to it after. Loop only.
func (s *h2Stream) onWSData(data []byte, end bool) {
	ws := s.ws
	if ws == nil {
		s.early = append(s.early, data...)
		s.earlyEnd = s.earlyEnd || end
		return
	}
	if ws.inEnded || ws.isGone {
		s.d.h2.Consumed(s.id, len(data))
		return
	}
	ws.h2in = append(ws.h2in, data...)
	if end {
		// The peer ended its side: what it sent is read, then the
		// WebSocket ends (OnClose sees 1006 if no close frame came). A
		// close frame whose answer waits for the callbacks
		// (wsCloseReceived) ends it once the answer is out (closeSent).
		defer func() {
			if ws.closing != wsCloseReceived {
				ws.endTransport()
			}
		}()
	}
	if !ws.paused {
		ws.paused = !ws.process()
	}
}

// readOnH2 resumes a paused read of a WebSocket over HTTP/2: its callbacks
// caught up (wsResume), the stream's output went (h2Stream.pump), or the
// sweep looks again. paused is cleared first: process's own writes pump
// the stream, which must not start it again from within. Loop only.
func (ws *WSConn) readOnH2() {
	if ws.paused && ws.live() {
		ws.paused = false
		ws.paused = !ws.process()
	}
}

// wsGone runs when the stream is freed or reset. Loop only.
func (s *h2Stream) wsGone() {
	if s.ws != nil && !s.ws.isGone {
		s.ws.gone()
	}
}
