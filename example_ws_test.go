package gwist_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
)

// An echo endpoint: every message comes back as it was sent. No goroutine
// waits for a connection's next message; OnMessage runs on the worker pool
// when one arrives.
func ExampleWebSocket() {
	closed := make(chan struct{})
	app := gwist.New()
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnMessage: func(ws *gwist.WSConn, op gwist.Opcode, data []byte) {
			_ = ws.WriteMessage(op, data) // data is only valid until OnMessage returns; WriteMessage copies it
		},
		OnClose: func(ws *gwist.WSConn, code gwist.CloseCode, reason string) {
			fmt.Println("closed:", code, reason)
			close(closed)
		},
	}))
	addr, _ := app.Start("127.0.0.1:0")
	defer app.Shutdown(context.Background())

	// A minimal client with the websocket package's frame writer and reader.
	conn, _ := net.Dial("tcp", addr.String())
	defer conn.Close()
	conn.Write([]byte("GET /ws HTTP/1.1\r\nHost: " + addr.String() + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
	br := bufio.NewReader(conn)
	resp, _ := http.ReadResponse(br, nil)
	fmt.Println(resp.Status)
	mask := [4]byte{1, 2, 3, 4}
	conn.Write(websocket.AppendMaskedFrame(nil, websocket.OpText, true, []byte("hello"), mask))
	r := websocket.NewReader(websocket.Config{Client: true})
	buf := make([]byte, 512)
	for ev, ok := r.Next(); ; ev, ok = r.Next() {
		if ok {
			fmt.Printf("%s %q\n", ev.Opcode, ev.Payload)
			break
		}
		n, _ := br.Read(buf)
		r.Feed(buf[:n])
	}
	conn.Write(websocket.AppendMaskedFrame(nil, websocket.OpClose, true, websocket.ClosePayload(nil, 1000, "bye"), mask))
	<-closed // OnClose ran
	// Output:
	// 101 Switching Protocols
	// text "hello"
	// closed: 1000 bye
}

// A broadcast hub: sockets join it when they open and leave it by
// themselves when they close; Broadcast encodes a message once for all.
func ExampleNewWSHub() {
	hub := gwist.NewWSHub()
	app := gwist.New()
	app.GET("/live", gwist.WebSocket(&gwist.WSHandler{
		OnOpen:       func(ws *gwist.WSConn) { hub.Add(ws) },
		Subprotocols: []string{"v1.live"},
	}))
	app.POST("/publish", func(c *gwist.Ctx) error {
		sent, dropped := hub.Broadcast(gwist.TextMessage, c.Body())
		return c.String(200, fmt.Sprintf("sent to %d, dropped %d\n", sent, dropped))
	})
	addr, _ := app.Start("127.0.0.1:0")
	defer app.Shutdown(context.Background())
	resp, err := http.Post("http://"+addr.String()+"/publish", "text/plain", strings.NewReader("news"))
	if err != nil {
		return
	}
	defer resp.Body.Close()
	b := make([]byte, 64)
	n, _ := resp.Body.Read(b)
	fmt.Print(string(b[:n]))
	// Output: sent to 0, dropped 0
}
