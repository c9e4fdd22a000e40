package gwist_test

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
)

var websocketDeflateDefault = websocket.DeflateConfig{}

// pythonWebsockets returns a python3 that has the websockets package, or
// skips the test.
func pythonWebsockets(t *testing.T) string {
	t.Helper()
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import websockets").Run() == nil {
			return py
		}
	}
	t.Skip("no python3 with the websockets package (apt-get install python3-websockets)")
	return ""
}

// Python's websockets as an independent client: echo of text and binary, a
// fragmented message, a 1 MB message, permessage-deflate, ping, and the
// close handshake; over ws:// and wss://.
func TestWebSocketPythonClient(t *testing.T) {
	py := pythonWebsockets(t)
	h := func(rec *echoRecorder) *gwist.WSHandler {
		h := rec.handler(gwist.WSConfig{MaxMessage: 4 << 20})
		h.Compression = &websocketDeflateDefault
		return h
	}
	plainRec, tlsRec := &echoRecorder{}, &echoRecorder{}
	plain := gwist.New(gwist.WithLogger(discardLogger()))
	plain.GET("/ws", gwist.WebSocket(h(plainRec)))
	secure := gwist.New(gwist.WithLogger(discardLogger()))
	secure.GET("/ws", gwist.WebSocket(h(tlsRec)))
	urls := map[string]*echoRecorder{
		"ws://" + startApp(t, plain) + "/ws":                       plainRec,
		"wss://" + startTLS(t, secure, serverTLSConfig(t)) + "/ws": tlsRec,
	}
	for url, rec := range urls {
		t.Run(strings.SplitN(url, ":", 2)[0], func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, py, "testdata/ws_python_client.py", url).CombinedOutput()
			if err != nil || !strings.Contains(string(out), "OK") {
				t.Fatalf("python websockets client: %v\n%s", err, out)
			}
			waitFor(t, 5*time.Second, "OnClose", func() bool { return len(rec.closed()) == 1 })
			if got := rec.closed()[0]; got != 1000 {
				t.Fatalf("OnClose %d, want 1000", got)
			}
		})
	}
}
