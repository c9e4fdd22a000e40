package wsclient_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
	"github.com/gwist/gwist/websocket/wsclient"
)

// Dial a WebSocket route, send a message and read the echo, then close.
// The App runs under httptest here: gwist's WebSocket routes work there
// (the connection is taken from net/http), as on gwist's own listeners.
func ExampleDial() {
	app := gwist.New()
	app.GET("/echo", gwist.WebSocket(&gwist.WSHandler{
		Compression: &websocket.DeflateConfig{}, // accept permessage-deflate
		OnMessage:   func(ws *gwist.WSConn, op gwist.Opcode, data []byte) { _ = ws.WriteMessage(op, data) },
	}))
	srv := httptest.NewServer(app)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	url := "ws" + strings.TrimPrefix(srv.URL, "http") + "/echo"
	c, _, err := wsclient.Dial(ctx, url, &wsclient.Options{Compression: &websocket.DeflateConfig{}})
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = c.WriteText("hello")
	op, data, err := c.ReadMessage()
	fmt.Println(op, string(data), err, c.Compressed())
	fmt.Println(c.Close(websocket.CloseNormal, "done"))
	// Output:
	// text hello <nil> true
	// <nil>
}
