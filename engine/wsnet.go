//go:build unix

package engine

import (
	"bufio"
	"errors"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gwist/gwist/websocket"
)

// A WebSocket outside the event loop: the connection a net/http server
// handed over (Hijack) when the App runs under ServeHTTP (httptest, an App
// mounted on a net/http server). It has the same WSConn API, limits and
// callbacks as on the loop, driven by two goroutines instead: this one
// reads frames and runs the callbacks in order (so a callback that takes
// its time slows reading, which is the read backpressure here), and a
// writer sends what WriteMessage, Broadcast and Close queue. That costs
// two goroutines per connection: fine for tests and for apps mounted under
// net/http, which spend one per connection anyway.

// NetWSOptions is what ServeNetWebSocket needs besides the connection.
type NetWSOptions struct {
	// Logger gets the callbacks' panics (default slog.Default()).
	Logger *slog.Logger
	// Drain, when closed, makes the server close the WebSocket with 1001,
	// as a Shutdown does on the loop.
	Drain <-chan struct{}
	// WriteTimeout bounds each write to the peer (default
	// DefaultWriteTimeout); a peer that takes nothing for that long is
	// dropped.
	WriteTimeout time.Duration
}

// netWS is a WSConn's net.Conn side (WSConn.nc).
type netWS struct {
	conn   net.Conn
	br     *bufio.Reader
	logger *slog.Logger
	wmu    sync.Mutex    // one write to conn at a time (the writer, pongs, pings)
	wake   chan struct{} // something to write (capacity 1)
	stop   chan struct{} // closed when the reader is done
	// closeSent: a close frame went out; closeAt: when to give up waiting
	// for the peer's (unix nanoseconds).
	closeSent atomic.Bool
	closeAt   atomic.Int64
	timeout   time.Duration
}

func (nc *netWS) signal() {
	select {
	case nc.wake <- struct{}{}:
	default:
	}
}

// ServeNetWebSocket runs a WebSocket over conn, whose opening handshake
// (the 101) has been sent, until it closes: it returns after OnClose.
// br holds what the client sent after its handshake (bufio's buffer from
// the Hijack). The handler's callbacks run on the calling goroutine.
func ServeNetWebSocket(conn net.Conn, br *bufio.Reader, up WSUpgrade, opts NetWSOptions) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.WriteTimeout <= 0 {
		opts.WriteTimeout = DefaultWriteTimeout
	}
	if br == nil {
		br = bufio.NewReader(conn)
	}
	ws := up.alloc()
	nc := &netWS{conn: conn, br: br, logger: opts.Logger, wake: make(chan struct{}, 1), stop: make(chan struct{}),
		timeout: opts.WriteTimeout}
	ws.nc = nc
	wrote := make(chan struct{})
	go func() {
		defer close(wrote)
		nc.writeLoop(ws, opts.Drain)
	}()
	code, reason := nc.readLoop(ws)
	close(nc.stop)
	<-wrote
	_ = conn.Close()
	ws.netGone()
	ws.runSafely(func() { ws.h.OnClose(ws, code, reason) })
}

// readLoop reads frames and runs OnOpen and OnMessage; it returns the
// code and reason for OnClose.
func (nc *netWS) readLoop(ws *WSConn) (websocket.CloseCode, string) {
	ws.runSafely(func() { ws.h.OnOpen(ws) })
	cfg := ws.cfg
	r := websocket.NewReader(websocket.Config{MaxFrame: cfg.MaxFrame, MaxMessage: cfg.MaxMessage, Deflate: ws.deflate})
	var in []byte
	buf := make([]byte, 32<<10)
	lastData := time.Now()
	pingSent := false
	for {
		for {
			ev, ok := r.Next()
			if !ok {
				if err := r.Err(); err != nil {
					nc.closeWith(ws, err.Code, err.Reason)
					return err.Code, err.Reason
				}
				if len(in) == 0 {
					break
				}
				n := r.Feed(in)
				in = in[n:]
				if n > 0 {
					continue
				}
				// Feed took nothing: an event it completed is waiting, or
				// an error, or the input ends in a partial frame header.
				if ev, ok = r.Next(); !ok {
					if r.Err() != nil {
						continue
					}
					break // read more
				}
			}
			switch ev.Kind {
			case websocket.EventMessage:
				if nc.closeSent.Load() {
					continue // closing: data is no longer delivered
				}
				lastData = time.Now()
				op, data := ev.Opcode, ev.Payload
				ws.runSafely(func() { ws.h.OnMessage(ws, op, data) })
			case websocket.EventPing:
				if !nc.closeSent.Load() {
					_ = nc.writeFrame(websocket.AppendFrame(nil, websocket.OpPong, true, ev.Payload))
				}
			case websocket.EventPong:
				pingSent = false
			case websocket.EventClose:
				echo := ev.Code
				if echo == websocket.CloseNoStatus {
					echo = 0
				}
				nc.closeWith(ws, echo, "")
				return ev.Code, ev.Reason
			}
		}
		now := time.Now()
		deadline := now.Add(24 * time.Hour)
		switch {
		case nc.closeSent.Load():
			deadline = time.Unix(0, nc.closeAt.Load())
		case pingSent:
			deadline = now.Add(cfg.PongTimeout)
		case cfg.PingInterval > 0:
			deadline = now.Add(cfg.PingInterval)
		}
		if cfg.IdleTimeout > 0 && !nc.closeSent.Load() {
			deadline = minTime(deadline, lastData.Add(cfg.IdleTimeout))
		}
		_ = nc.conn.SetReadDeadline(deadline)
		n, err := nc.br.Read(buf)
		if n > 0 {
			in = append(in, buf[:n]...)
			pingSent = false // anything from the peer shows it is alive
			continue
		}
		var ne net.Error
		if err == nil || !errors.As(err, &ne) || !ne.Timeout() {
			return websocket.CloseAbnormal, ""
		}
		switch now := time.Now(); {
		case nc.closeSent.Load():
			return websocket.CloseAbnormal, "" // no close frame from the peer in time
		case cfg.IdleTimeout > 0 && now.Sub(lastData) >= cfg.IdleTimeout:
			_ = ws.Close(websocket.CloseGoingAway, "idle timeout")
		case pingSent:
			return websocket.CloseAbnormal, "no pong"
		case cfg.PingInterval > 0:
			if nc.writeFrame(websocket.AppendFrame(nil, websocket.OpPing, true, nil)) != nil {
				return websocket.CloseAbnormal, ""
			}
			pingSent = true
		}
	}
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// closeWith queues the close frame (code 0: an empty one) after what the
// application queued, unless one was, and waits for the writer to send it.
func (nc *netWS) closeWith(ws *WSConn, code websocket.CloseCode, reason string) {
	ws.mu.Lock()
	if !ws.writeDone || ws.closeReq {
		ws.writeDone = true
		ws.closeReq, ws.closeCode, ws.closeReason = true, code, reason
		ws.wakeWriters()
	}
	ws.mu.Unlock()
	nc.signal()
}

// writeLoop sends what the writers queued, then the close frame, until
// the reader is done; a Drain closes with 1001.
func (nc *netWS) writeLoop(ws *WSConn, drain <-chan struct{}) {
	for {
		select {
		case <-nc.stop:
			nc.flush(ws) // a close frame queued last
			return
		case <-drain:
			_ = ws.Close(websocket.CloseGoingAway, "server shutting down")
			drain = nil
			continue
		case <-nc.wake:
		}
		if nc.flush(ws) != nil {
			// Nothing will be written any more: writers fail now rather
			// than wait (a callback waiting would hold up the reader), and
			// the reader sees the closed connection and ends.
			ws.mu.Lock()
			ws.writeDone = true
			ws.wakeWriters()
			ws.mu.Unlock()
			_ = nc.conn.Close()
			return
		}
	}
}

// flush writes what is queued, and a requested close frame last.
func (nc *netWS) flush(ws *WSConn) error {
	ws.mu.Lock()
	shared, buf, bufp := ws.shared, ws.buf, ws.bufp
	ws.shared, ws.buf, ws.bufp = nil, nil, nil
	ws.backlog.Store(int64(ws.queuedLen))
	ws.queuedLen = 0
	closeReq, code, reason := ws.closeReq && !nc.closeSent.Load(), ws.closeCode, ws.closeReason
	ws.closeReq = false
	ws.mu.Unlock()
	var err error
	for _, f := range shared {
		if err == nil {
			err = nc.writeFrame(f)
		}
	}
	if err == nil && len(buf) > 0 {
		err = nc.writeFrame(buf)
	}
	if bufp != nil && cap(buf) <= 64<<10 {
		*bufp = buf[:0]
		wsBufPool.Put(bufp)
	}
	if err == nil && closeReq {
		nc.closeAt.Store(time.Now().Add(ws.cfg.CloseTimeout).UnixNano())
		nc.closeSent.Store(true)
		frame := []byte{0x88, 0x00}
		if code != 0 {
			frame = websocket.AppendClose(nil, code, reason)
		}
		err = nc.writeFrame(frame)
		_ = nc.conn.SetReadDeadline(time.Unix(0, nc.closeAt.Load())) // the reader waits no longer
	}
	ws.backlog.Store(0)
	ws.mu.Lock()
	ws.wakeWriters()
	ws.mu.Unlock()
	return err
}

// writeFrame writes bytes to the peer, within the write timeout.
func (nc *netWS) writeFrame(b []byte) error {
	nc.wmu.Lock()
	defer nc.wmu.Unlock()
	_ = nc.conn.SetWriteDeadline(time.Now().Add(nc.timeout))
	_, err := nc.conn.Write(b)
	return err
}

// runSafely runs a callback, logging a panic and closing with 1011.
func (ws *WSConn) runSafely(f func()) {
	defer func() {
		if r := recover(); r != nil {
			ws.logger().Error("gwist: WebSocket handler panic", slog.Any("panic", r))
			_ = ws.Close(websocket.CloseInternalError, "")
		}
	}()
	f()
}

// netGone: the connection is closed; writers fail and the hubs let go.
func (ws *WSConn) netGone() {
	ws.mu.Lock()
	ws.isGone, ws.writeDone = true, true
	ws.giveBuf()
	if ws.deflater != nil {
		ws.deflater.Release()
	}
	ws.shared = nil
	ws.queuedLen = 0
	ws.wakeWriters()
	hubs := ws.hubs
	ws.hubs = nil
	ws.mu.Unlock()
	for _, h := range hubs {
		h.Remove(ws)
	}
}
