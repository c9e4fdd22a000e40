package main

import (
	"encoding/json"
	"strconv"
	"sync"

	"github.com/gwist/gwist"
)

// hub broadcasts changes to every open event feed and WebSocket. Neither
// costs a goroutine (gwist.SSEFeed, gwist.WSConn) and neither needs
// bookkeeping here: a gwist.SSEHub holds the feeds and a gwist.WSHub the
// sockets, each member leaving its hub by itself when it ends, and each
// closing a member too far behind (the browser reconnects and reloads the
// list).
type hub struct {
	feeds *gwist.SSEHub
	ws    *gwist.WSHub
	mu    sync.Mutex
	seq   int64 // event IDs
}

func newHub() *hub { return &hub{feeds: gwist.NewSSEHub(), ws: gwist.NewWSHub()} }

// change is one event of the feed.
type change struct {
	Op   string `json:"op"` // created, updated, deleted
	Todo Todo   `json:"todo"`
}

// broadcast sends c to every feed and socket, encoded once for each kind.
func (h *hub) broadcast(c change) {
	data, err := json.Marshal(c)
	if err != nil {
		return
	}
	h.mu.Lock() // events go out in the order of their IDs
	defer h.mu.Unlock()
	h.ws.Broadcast(gwist.TextMessage, data)
	h.seq++
	_, _, _ = h.feeds.Publish(gwist.SSEEvent{ID: strconv.FormatInt(h.seq, 10), Event: "change", Data: string(data)})
}
