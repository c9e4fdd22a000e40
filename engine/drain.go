//go:build unix

package engine

import (
	"context"
	"time"
)

// drainIdleGrace is how long a drain leaves a keep-alive connection that is
// idle (between two requests) open before closing it. A busy client's next
// request usually follows its last response within a round trip; given the
// grace, it is answered (with Connection: close) instead of crossing the
// close on the wire and being lost.
const drainIdleGrace = 50 * time.Millisecond

// closeIfIdleForDrain closes c during a drain once it has been idle for
// drainIdleGrace with no request bytes waiting in its socket. A connection
// that served a request meanwhile is not idle again: that response said
// Connection: close, and the connection closes after it. Bytes that reached
// the socket but not yet the loop are a request sent before the client could
// see the close: the loop reads it on its next turn and answers it. Only a
// request that arrives in the instant between this look and the close is
// lost (the client sees EOF or a reset before any response, which HTTP
// clients treat as a closed idle connection and may retry).
func (c *conn) closeIfIdleForDrain(now int64) {
	if c.closed || !c.isIdle() {
		return
	}
	if c.drainIdleSince == 0 {
		c.drainIdleSince = now
	}
	if now-c.drainIdleSince < int64(drainIdleGrace) || socketHasInput(c.fd) {
		return
	}
	c.closeIdle()
}

// cutCloseWait bounds how long a drain cut by its deadline waits for its
// loops to close the connections left (a loop stuck in an inline handler
// closes them when it returns).
const cutCloseWait = 5 * time.Second

// closeRemaining closes, on their loops, the connections of s still open
// when its drain was cut. The loops may serve other listeners of the same
// App (LoopGroup), so stopping them is not the way to close these.
func (s *Server) closeRemaining() {
	s.loopsMu.Lock()
	for el, ls := range s.loops {
		_ = el.Execute(context.Background(), closeAllTask{ls})
	}
	s.loopsMu.Unlock()
	deadline := time.Now().Add(cutCloseWait)
	for s.conns.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(drainPollInterval)
	}
}

// closeAllTask closes every connection of its loopState. Loop only.
type closeAllTask struct{ ls *loopState }

func (t closeAllTask) Run(context.Context) error {
	ls := t.ls
	ls.g.check("closing a cut drain's connections")
	ls.close = append(ls.close[:0], ls.conns...)
	for i, c := range ls.close {
		c.abort()
		ls.close[i] = nil
	}
	return nil
}
