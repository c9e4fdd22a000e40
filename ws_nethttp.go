package gwist

import (
	"bufio"
	"net/http"
	"strings"
	"time"

	"github.com/gwist/gwist/engine"
)

// WebSocket under App.ServeHTTP: net/http hands the connection over
// (Hijack) once the App's handlers have returned, and the engine runs the
// WebSocket on it with goroutines (engine.ServeNetWebSocket) rather than
// on its event loop.

// hijackableSink returns the ServeHTTP sink when its connection can be
// taken over for a WebSocket (HTTP/1.x, a ResponseWriter that can Hijack),
// else nil.
func (c *Ctx) hijackableSink() *responseSink {
	rs, ok := c.ex.Sink().(*responseSink)
	if !ok || rs.r.ProtoMajor != 1 {
		return nil
	}
	for w := rs.w; w != nil; {
		if _, ok := w.(http.Hijacker); ok {
			return rs
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			return nil
		}
		w = u.Unwrap()
	}
	return nil
}

// serveWebSocket takes the connection from net/http, sends the 101 with
// the handshake's headers, and runs the WebSocket until it closes.
func (a *App) serveWebSocket(s *responseSink, ex *engine.Exchange) {
	conn, brw, err := http.NewResponseController(s.w).Hijack()
	if err != nil {
		a.logger().Error("gwist: WebSocket under ServeHTTP: taking the connection from net/http", "error", err)
		http.Error(s.w, "WebSocket upgrade failed", http.StatusInternalServerError)
		return
	}
	_ = conn.SetDeadline(time.Time{}) // net/http's read and write deadlines are its own
	w := bufio.NewWriter(conn)
	w.WriteString("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n")
	for _, f := range ex.Header.Fields() {
		switch strings.ToLower(f.Name) {
		case "upgrade", "connection", "content-length", "transfer-encoding", "date", "content-type":
			continue
		}
		w.WriteString(f.Name + ": " + f.Value + "\r\n")
	}
	w.WriteString("\r\n")
	if err := w.Flush(); err != nil {
		_ = conn.Close()
		return
	}
	engine.ServeNetWebSocket(conn, brw.Reader, *s.upgrade, engine.NetWSOptions{
		Logger: a.logger(), Drain: a.Draining(), WriteTimeout: a.cfg.engine.WriteTimeout})
}
