package websocket_test

import (
	"fmt"

	"github.com/gwist/gwist/websocket"
)

func ExampleAcceptKey() {
	// The Sec-WebSocket-Accept answer to RFC 6455 section 1.3's key.
	fmt.Println(websocket.AcceptKey("dGhlIHNhbXBsZSBub25jZQ=="))
	// Output: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=
}

func ExampleAppendFrame() {
	out := websocket.AppendFrame(nil, websocket.OpText, true, []byte("Hello"))
	fmt.Printf("% x\n", out)
	out = websocket.AppendClose(out[:0], websocket.CloseNormal, "bye")
	fmt.Printf("% x\n", out)
	// Output:
	// 81 05 48 65 6c 6c 6f
	// 88 05 03 e8 62 79 65
}

func ExampleReader() {
	// What a client sent: a masked "Hello" in two fragments with a ping
	// between them, then a close frame.
	mask := [4]byte{1, 2, 3, 4}
	var in []byte
	in = websocket.AppendMaskedFrame(in, websocket.OpText, false, []byte("Hel"), mask)
	in = websocket.AppendMaskedFrame(in, websocket.OpPing, true, []byte("are you there?"), mask)
	in = websocket.AppendMaskedFrame(in, websocket.OpContinuation, true, []byte("lo"), mask)
	in = websocket.AppendMaskedFrame(in, websocket.OpClose, true, []byte{0x03, 0xe8}, mask)

	r := websocket.NewReader(websocket.Config{})
	var out []byte // what the server writes back
	for len(in) > 0 {
		n := r.Feed(in)
		in = in[n:]
		ev, ok := r.Next()
		if !ok {
			break
		}
		switch ev.Kind {
		case websocket.EventMessage:
			fmt.Printf("%v message %q\n", ev.Opcode, ev.Payload)
		case websocket.EventPing:
			fmt.Printf("ping %q\n", ev.Payload)
			out = websocket.AppendFrame(out, websocket.OpPong, true, ev.Payload)
		case websocket.EventClose:
			fmt.Printf("close %d\n", ev.Code)
			out = websocket.AppendClose(out, ev.Code, "")
		}
	}
	if err := r.Err(); err != nil {
		out = websocket.AppendClose(out, err.Code, err.Reason)
	}
	fmt.Printf("reply: %d bytes\n", len(out))
	// Output:
	// ping "are you there?"
	// text message "Hello"
	// close 1000
	// reply: 20 bytes
}
