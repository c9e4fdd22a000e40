package gwist_test

import (
	"crypto/tls"
	"fmt"
	"testing"

	"github.com/gwist/gwist/websocket"
)

// An echo callback on a worker writes its answer to the socket itself
// (Stats().Backpressure.WSDirectWrites), without a hand-off to the event
// loop, and every answer arrives whole and in order; over TLS the loop
// writes them (no direct writes).
func TestWebSocketEchoWritesDirect(t *testing.T) {
	for _, tlsOn := range []bool{false, true} {
		t.Run(fmt.Sprintf("tls=%v", tlsOn), func(t *testing.T) {
			app := echoWSApp()
			var c *wsClient
			if tlsOn {
				addr := startTLS(t, app, serverTLSConfig(t))
				c = dialWSS(t, addr, "/ws", &tls.Config{RootCAs: getPKI(t).pool, ServerName: "localhost"})
			} else {
				c = dialWS(t, startApp(t, app), "/ws")
			}
			const n = 200
			for i := range n {
				msg := fmt.Sprintf("message %d", i)
				c.SendFrame(websocket.OpText, true, []byte(msg))
				c.ExpectMessage(websocket.OpText, msg)
			}
			got := app.Stats().Backpressure.WSDirectWrites
			switch {
			case !tlsOn && got < n/2:
				t.Fatalf("%d of %d echoes written directly, want most", got, n)
			case tlsOn && got != 0:
				t.Fatalf("%d echoes written directly over TLS, want none", got)
			}
			t.Logf("%d of %d echoes written by their callback", got, n)
		})
	}
}
