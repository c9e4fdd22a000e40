// Command wsgorilla is the gorilla/websocket peer of gwist's WebSocket
// benchmarks: net/http with gorilla/websocket v1.5.3, written the way its
// examples are (a goroutine per connection running the read loop; for
// subscribers a second goroutine writing from a buffered channel, as in
// its chat example, and one PreparedMessage per broadcast).
//
//	GET  /ws                  echo every message (text and binary)
//	GET  /ws/sub              receive every broadcast
//	POST /broadcast?bytes=N   hand one binary message of N bytes to every subscriber
package main

import (
	"flag"
	"net"
	"net/http"
	"sync"

	"github.com/gorilla/websocket"

	"github.com/gwist/gwist/benchmarks/internal/serve"
)

// upgrader keeps gorilla's defaults (the HTTP server's 4 KiB buffers are
// reused for the connection; no compression) and accepts any Origin.
var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// sendQueue is each subscriber's queue of broadcasts waiting to be written.
const sendQueue = 16

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	h := &hub{subs: map[*subscriber]struct{}{}}
	mux := http.NewServeMux()
	mux.HandleFunc(serve.WSPath, echo)
	mux.HandleFunc(serve.WSSubPath, h.subscribe)
	mux.HandleFunc(serve.BroadcastPath, func(w http.ResponseWriter, r *http.Request) {
		serve.ServeBroadcast(w, r, h.broadcast)
	})
	srv := &http.Server{Handler: mux}
	// Bound before the announcement: the runner connects as soon as it
	// reads it.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		serve.Fatal("wsgorilla", err)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	serve.Announce("http", ln.Addr().String())
	go func() { serve.WaitSignal(); srv.Close() }()
	if err := <-errc; err != nil && err != http.ErrServerClosed {
		serve.Fatal("wsgorilla", err)
	}
}

// echo writes every message back, as gorilla's echo example does.
func echo(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer c.Close()
	for {
		mt, msg, err := c.ReadMessage()
		if err != nil {
			return
		}
		if err := c.WriteMessage(mt, msg); err != nil {
			return
		}
	}
}

type subscriber struct {
	c    *websocket.Conn
	send chan *websocket.PreparedMessage
}

// hub is the set of subscribers.
type hub struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

// subscribe registers the connection, writes broadcasts from its queue on
// a second goroutine, and reads (dropping data, answering pings and close)
// until the connection ends.
func (h *hub) subscribe(w http.ResponseWriter, r *http.Request) {
	c, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	s := &subscriber{c: c, send: make(chan *websocket.PreparedMessage, sendQueue)}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	h.mu.Unlock()
	go s.writeLoop()
	for {
		if _, _, err := c.NextReader(); err != nil {
			break
		}
	}
	h.mu.Lock()
	delete(h.subs, s)
	close(s.send)
	h.mu.Unlock()
}

func (s *subscriber) writeLoop() {
	defer s.c.Close()
	for m := range s.send {
		if err := s.c.WritePreparedMessage(m); err != nil {
			for range s.send {
			}
			return
		}
	}
}

// broadcast queues one prepared message (framed once) on every subscriber;
// a subscriber whose queue is full misses it.
func (h *hub) broadcast(msg []byte) (sent, dropped int) {
	pm, err := websocket.NewPreparedMessage(websocket.BinaryMessage, msg)
	if err != nil {
		return 0, 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		select {
		case s.send <- pm:
			sent++
		default:
			dropped++
		}
	}
	return sent, dropped
}
