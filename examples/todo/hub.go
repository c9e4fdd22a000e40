package main

import (
	"encoding/json"
	"errors"
	"strconv"
	"sync"

	"github.com/gwist/gwist"
)

// hub broadcasts changes to every open event feed and WebSocket. Neither
// costs a goroutine (gwist.SSEFeed, gwist.WSConn): the hub keeps the feeds
// and calls Send, and a gwist.WSHub holds the sockets (ws.go).
type hub struct {
	mu    sync.Mutex
	feeds map[*gwist.SSEFeed]struct{}
	seq   int64 // event IDs
	ws    *gwist.WSHub
}

func newHub() *hub { return &hub{feeds: make(map[*gwist.SSEFeed]struct{}), ws: gwist.NewWSHub()} }

// add registers a feed; it is dropped at the first broadcast after it
// ended (the client left, or Close).
func (h *hub) add(f *gwist.SSEFeed) {
	h.mu.Lock()
	h.feeds[f] = struct{}{}
	h.mu.Unlock()
}

// change is one event of the feed.
type change struct {
	Op   string `json:"op"` // created, updated, deleted
	Todo Todo   `json:"todo"`
}

// broadcast sends c to every feed and socket. A feed that ended is dropped; one whose
// client is too far behind (gwist.ErrSlowClient) is closed and dropped:
// its browser reconnects and reloads the list.
func (h *hub) broadcast(c change) {
	data, err := json.Marshal(c)
	if err != nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ws.Broadcast(gwist.TextMessage, data) // encoded once for every socket
	h.seq++
	ev := gwist.SSEEvent{ID: strconv.FormatInt(h.seq, 10), Event: "change", Data: string(data)}
	for f := range h.feeds {
		if err := f.Send(ev); err != nil {
			if errors.Is(err, gwist.ErrSlowClient) {
				_ = f.Close()
			}
			delete(h.feeds, f)
		}
	}
}

// size is the number of feeds held.
func (h *hub) size() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.feeds)
}

// closeAll ends every feed (at shutdown, before the server drains).
func (h *hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for f := range h.feeds {
		_ = f.Close()
		delete(h.feeds, f)
	}
}
