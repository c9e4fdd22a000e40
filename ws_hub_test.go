package gwist_test

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/websocket"
)

// A hub sends one message to every member; members leave when they close;
// a member over its cap is closed with 1008 and the others go on.
func TestWebSocketHub(t *testing.T) {
	hub := gwist.NewWSHub()
	var opened atomic.Int32
	app := gwist.New(gwist.WithLogger(discardLogger()))
	app.GET("/ws", gwist.WebSocket(&gwist.WSHandler{
		OnOpen: func(ws *gwist.WSConn) { hub.Add(ws); opened.Add(1) },
		Config: gwist.WSConfig{MaxQueued: 1 << 20, CloseTimeout: 500 * time.Millisecond},
	}))
	addr := startApp(t, app)
	const n = 20
	var clients []*wsClient
	for range n {
		clients = append(clients, dialWS(t, addr, "/ws"))
	}
	waitFor(t, 5*time.Second, "every OnOpen", func() bool { return opened.Load() == n })
	for i := range 3 {
		if sent, dropped := hub.Broadcast(websocket.OpText, []byte("news "+strconv.Itoa(i))); sent != n || dropped != 0 {
			t.Fatalf("Broadcast: sent %d dropped %d", sent, dropped)
		}
	}
	for _, c := range clients {
		for i := range 3 {
			c.ExpectMessage(websocket.OpText, "news "+strconv.Itoa(i))
		}
	}
	clients[0].Conn.Close()
	waitFor(t, 5*time.Second, "the closed member to leave", func() bool { return hub.Len() == n-1 })

	// clients[1] stops reading (with a small receive buffer, to fill
	// sooner); the others read everything.
	_ = clients[1].Conn.(*net.TCPConn).SetReadBuffer(4096)
	big := bytes.Repeat([]byte("b"), 16<<10)
	const frame = 4 + 16<<10 // a 16 KiB message's frame: 2 bytes of header, 2 of length
	var wg sync.WaitGroup
	read := make([]atomic.Int64, len(clients)-2)
	for i, c := range clients[2:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.Conn.SetReadDeadline(time.Now().Add(30 * time.Second))
			_, _ = io.Copy(countingWriter{&read[i]}, c.BR)
		}()
	}
	dropped := 0
	rounds := 0
	for ; rounds < 5000 && dropped == 0; rounds++ {
		_, dropped = hub.Broadcast(websocket.OpBinary, big)
		// The readers keep up: the next broadcast once they have this one.
		waitFor(t, 5*time.Second, "the readers to read the broadcast", func() bool {
			for i := range read {
				if read[i].Load() < int64(rounds+1)*frame {
					return false
				}
			}
			return true
		})
	}
	if dropped != 1 {
		t.Fatalf("dropped %d, want the one slow member (after %d broadcasts)", dropped, rounds)
	}
	// The server closed it (1008, then CloseTimeout: it reads nothing),
	// and it left the hub.
	waitFor(t, 5*time.Second, "the slow member to be closed and leave", func() bool { return hub.Len() == n-2 })
	clients[1].Conn.Close()
	for _, c := range clients[2:] {
		c.Conn.Close()
	}
	wg.Wait()
}

// countingWriter discards what it is given and counts it.
type countingWriter struct{ n *atomic.Int64 }

func (w countingWriter) Write(p []byte) (int, error) {
	w.n.Add(int64(len(p)))
	return len(p), nil
}
