package gwist_test

import (
	"bytes"
	"crypto/tls"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
)

// wss://: the same over TLS, echo and the close handshake.
func TestWebSocketTLS(t *testing.T) {
	rec := &echoRecorder{}
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(rec.handler(gwist.WSConfig{})))
	addr := startTLS(t, app, serverTLSConfig(t))
	c := dialWSS(t, addr, "/ws", &tls.Config{RootCAs: getPKI(t).pool, ServerName: "localhost"})
	for _, n := range []int{5, 70 << 10, 1} {
		msg := bytes.Repeat([]byte("t"), n)
		c.SendFrame(websocket.OpBinary, true, msg)
		c.ExpectMessage(websocket.OpBinary, string(msg))
	}
	c.SendRaw(websocket.AppendMaskedFrame(nil, websocket.OpClose, true, websocket.ClosePayload(nil, 4000, "done"), testMask))
	c.ExpectClose(4000)
	waitFor(t, 5*time.Second, "no WebSocket left", func() bool { return app.Stats().WebSockets == 0 })
}
