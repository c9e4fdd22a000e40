package gwist

import (
	"errors"
	"sync"
)

// SSEHub is a set of SSEFeeds to publish to, as WSHub is for WebSockets;
// see NewSSEHub. Its methods may be called from any goroutine.
type SSEHub struct {
	mu    sync.RWMutex
	feeds map[*SSEFeed]struct{}
}

// NewSSEHub returns an empty hub. Add feeds as their handlers open them:
//
//	f, err := c.SSEFeed()
//	if err != nil {
//		return err
//	}
//	hub.Add(f)
//	return nil
//
// A feed leaves the hub by itself the moment it ends (its client left,
// Close, a Shutdown), without a goroutine per feed: the event loop (or,
// under ServeHTTP, the feed's writer) takes it out as it ends it.
func NewSSEHub() *SSEHub { return &SSEHub{feeds: make(map[*SSEFeed]struct{})} }

// Add puts f in the hub; a feed that has ended is not added.
func (h *SSEHub) Add(f *SSEFeed) {
	h.mu.Lock()
	if _, ok := h.feeds[f]; ok {
		h.mu.Unlock()
		return
	}
	h.feeds[f] = struct{}{}
	h.mu.Unlock()
	f.afterEnd(func() { h.Remove(f) }) // runs now if f has ended
}

// Remove takes f out of the hub (it stays open).
func (h *SSEHub) Remove(f *SSEFeed) {
	h.mu.Lock()
	delete(h.feeds, f)
	h.mu.Unlock()
}

// Len is the number of feeds in the hub.
func (h *SSEHub) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.feeds)
}

// Publish sends ev to every feed of the hub without blocking: the event is
// encoded once and each feed queues the bytes (Send's rules). A feed too
// far behind its client (ErrSlowClient: more than WithMaxStreamQueued
// waits) is closed and leaves the hub, so a slow reader never silently
// misses an event and never holds up the others; its EventSource
// reconnects. sent counts the feeds the event was queued to, dropped those
// closed for it; err is ErrSSEField for an ID or Event with a line break
// (nothing is sent).
func (h *SSEHub) Publish(ev SSEEvent) (sent, dropped int, err error) {
	b, err := appendEvent(nil, ev)
	if err != nil {
		return 0, 0, err
	}
	var slow []*SSEFeed
	h.mu.RLock()
	for f := range h.feeds {
		switch err := f.write(b); {
		case err == nil:
			sent++
		case errors.Is(err, ErrSlowClient):
			slow = append(slow, f)
		}
	}
	h.mu.RUnlock()
	for _, f := range slow {
		_ = f.Close()
		h.Remove(f)
		dropped++
	}
	return sent, dropped, nil
}

// Close ends every feed of the hub (each client sees its stream end) and
// empties it.
func (h *SSEHub) Close() {
	h.mu.Lock()
	feeds := h.feeds
	h.feeds = make(map[*SSEFeed]struct{})
	h.mu.Unlock()
	for f := range feeds {
		_ = f.Close()
	}
}
