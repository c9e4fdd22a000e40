// Command wsnbio is the nbio peer of gwist's WebSocket benchmarks: an
// nbhttp.Engine (epoll, no goroutine per connection) with nbio's websocket
// upgrader and its callbacks, settings as in nbio's examples.
//
//	GET  /ws                  echo every message (text and binary)
//	GET  /ws/sub              receive every broadcast
//	POST /broadcast?bytes=N   hand one binary message of N bytes to every subscriber
//
// nbio's defaults that matter here: Config.MaxLoad (connections the engine
// accepts) is raised to 1<<20 as the nbio HTTP peer does; the upgrader's
// KeepaliveTime (a read deadline, 120 s by default, after which a silent
// connection is closed) is raised to 1 h so that held idle connections
// stay; MessageLengthLimit (4 MiB) and MaxWebsocketFramePayloadSize
// (32 KiB) are left as they are.
package main

import (
	"flag"
	"net/http"
	"runtime"
	"sync"
	"time"

	"github.com/lesismal/nbio/nbhttp"
	"github.com/lesismal/nbio/nbhttp/websocket"

	"github.com/gwist/gwist/benchmarks/internal/serve"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	h := &hub{subs: map[*websocket.Conn]struct{}{}}
	mux := http.NewServeMux()
	mux.HandleFunc(serve.WSPath, upgradeWith(echoUpgrader()))
	mux.HandleFunc(serve.WSSubPath, upgradeWith(h.upgrader()))
	mux.HandleFunc(serve.BroadcastPath, func(w http.ResponseWriter, r *http.Request) {
		serve.ServeBroadcast(w, r, h.broadcast)
	})
	engine := nbhttp.NewEngine(nbhttp.Config{
		Network: "tcp",
		Addrs:   []string{*addr},
		Handler: mux,
		MaxLoad: 1 << 20,
		NPoller: runtime.NumCPU(),
		// The payload given to OnMessage goes back to nbio's pool after
		// the callback, as nbio's examples set it.
		ReleaseWebsocketPayload: true,
	})
	if err := engine.Start(); err != nil {
		serve.Fatal("wsnbio", err)
	}
	serve.Announce("http", *addr)
	serve.WaitSignal()
	engine.Stop()
}

func newUpgrader() *websocket.Upgrader {
	u := websocket.NewUpgrader()
	u.CheckOrigin = func(*http.Request) bool { return true }
	u.KeepaliveTime = time.Hour
	return u
}

func upgradeWith(u *websocket.Upgrader) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, _ = u.Upgrade(w, r, nil)
	}
}

// echoUpgrader writes every message back from OnMessage.
func echoUpgrader() *websocket.Upgrader {
	u := newUpgrader()
	u.OnMessage(func(c *websocket.Conn, mt websocket.MessageType, data []byte) {
		_ = c.WriteMessage(mt, data)
	})
	return u
}

// hub is the set of subscribers, kept by OnOpen and OnClose.
type hub struct {
	mu   sync.Mutex
	subs map[*websocket.Conn]struct{}
}

func (h *hub) upgrader() *websocket.Upgrader {
	u := newUpgrader()
	u.OnOpen(func(c *websocket.Conn) {
		h.mu.Lock()
		h.subs[c] = struct{}{}
		h.mu.Unlock()
	})
	u.OnClose(func(c *websocket.Conn, _ error) {
		h.mu.Lock()
		delete(h.subs, c)
		h.mu.Unlock()
	})
	u.OnMessage(func(*websocket.Conn, websocket.MessageType, []byte) {})
	return u
}

// broadcast writes the message to every subscriber: nbio frames it per
// connection and queues what the socket does not take at once.
func (h *hub) broadcast(msg []byte) (sent, dropped int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.subs {
		if err := c.WriteMessage(websocket.BinaryMessage, msg); err != nil {
			dropped++
			continue
		}
		sent++
	}
	return sent, dropped
}
