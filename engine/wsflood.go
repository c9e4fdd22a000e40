//go:build unix

package engine

import (
	"time"

	"github.com/gwist/gwist/websocket"
)

// Pings and ping floods. A ping is answered with a pong (RFC 6455 section
// 5.5.2) through the same capped output as messages. While half of
// WSConfig.MaxQueued waits for the peer, the engine reads no data from it
// (wsdriver.go), only the control frames in between. A ping whose pong
// does not fit under MaxQueued is owed: the engine then stops reading the
// peer altogether, so the socket's receive window fills and the peer's
// writes block, until the output has room and the pong goes out (only the
// last ping's, as section 5.5.3 allows). A peer that owes the engine a read
// (a pong waits for it) and takes none of its output for wsPongStall is
// sent close 1008 and dropped at once, with what it has not read; it is
// counted (PipeStats.PingFloods). That is a ping flood from a peer that
// does not read, caught in wsPongStall as gorilla/websocket catches it with
// its one-second deadline on writing a pong; a peer that floods and reads
// slowly is held to the pace of its reading.

// wsPongStall is how long a peer owed a pong may take none of its output.
const wsPongStall = 2 * time.Second

// answerPing answers a ping, or owes its pong. Loop only.
func (ws *WSConn) answerPing(payload []byte) {
	if ws.pongFits(len(payload)) {
		ws.writePong(payload)
		return
	}
	ws.owesPong = true
	ws.pongOwed = append(ws.pongOwed[:0], payload...)
}

// payPong sends an owed pong once the output has room, and reports whether
// no pong is owed any more. Loop only.
func (ws *WSConn) payPong() bool {
	if !ws.owesPong {
		return true
	}
	if ws.closing != wsOpen || !ws.pongFits(len(ws.pongOwed)) {
		return false
	}
	ws.writePong(ws.pongOwed)
	ws.owesPong, ws.pongOwed = false, nil
	return true
}

// pongStalled closes the connection of a peer that owes a read: a pong has
// waited for room while the peer took none of the output for wsPongStall.
// Loop only (the sweep).
func (ws *WSConn) pongStalled(now int64) bool {
	if !ws.owesPong || now-ws.lastProgress() < int64(wsPongStall) {
		return false
	}
	c := ws.c
	c.srv.pipe.pingFloods.Add(1)
	c.srv.logDebug("WebSocket: closing a peer that sends pings and does not read the pongs", c)
	(*wsDriver)(ws).sendClose(websocket.ClosePolicyViolation, "ping flood")
	ws.queueClose(websocket.ClosePolicyViolation, "ping flood")
	ws.abortTransport()
	return true
}

// lastProgress is when the peer last took some of its output (the server
// clock): over HTTP/1 when the socket last took bytes (writetimeout.go),
// over HTTP/2 when the stream's DATA last moved. Loop only.
func (ws *WSConn) lastProgress() int64 {
	if s := ws.h2s; s != nil {
		if s.stalledSince == 0 {
			return ws.c.srv.now()
		}
		return s.stalledSince
	}
	c := ws.c
	if c.gc.OutboundBuffered() == 0 {
		return c.srv.now()
	}
	return c.wprogress
}

// writePong puts a pong in the output, after what writers queued before
// it. Loop only.
func (ws *WSConn) writePong(payload []byte) {
	(*wsDriver)(ws).flushOut()
	out := ws.outBuf()
	*out = websocket.AppendFrame(*out, websocket.OpPong, true, payload)
	ws.pumpOut()
}

// outputBacklog is what waits for the peer: in the transport
// (wstransport.go) and in the writers' queue. Loop only.
func (ws *WSConn) outputBacklog() int {
	n := ws.transportBacklog()
	ws.mu.Lock()
	n += ws.queuedLen
	ws.mu.Unlock()
	return n
}

// outputFull: half of WSConfig.MaxQueued waits for the peer. A writer
// blocks (or TryWriteMessage fails) when its message does not fit under
// MaxQueued, which leaves the output anywhere above the cap less one
// message; half the cap is where the peer is clearly not keeping up and
// its data is no longer read. On an Inline server any output waiting for
// the peer (backlog: in gnet's buffer, or for the stream's window) counts:
// its callbacks cannot wait for room (WriteMessage fails with
// ErrSlowClient), so a message goes to one only while the peer has taken
// what was sent, and a reply up to the cap fits (hasRoom; the same read's
// earlier replies, still in the writers' queue, are written out to make
// room for it: makeRoomOnLoop); the backlog is stored as it is looked at,
// so that the callback's writes see it too. The writers' queue is taken
// as the loop last saw it (writersQueued: at this read, or at its last
// message). Loop only.
func (ws *WSConn) outputFull(inline bool) bool {
	if inline && ws.storeBacklog() > 0 {
		return true
	}
	return ws.transportBacklog()+ws.writersQueued >= ws.cfg.MaxQueued/2
}

// pongFits: a pong of n payload bytes fits under WSConfig.MaxQueued, as a
// writer's message must. Loop only.
func (ws *WSConn) pongFits(n int) bool { return ws.outputBacklog()+2+n <= ws.cfg.MaxQueued }
