//go:build unix

package engine

import (
	"sync"

	"github.com/gwist/gwist/websocket"
)

// WSHub is a set of WebSocket connections to broadcast to. A connection
// leaves it by itself when it closes. Its methods may be called from any
// goroutine.
type WSHub struct {
	mu    sync.RWMutex
	conns map[*WSConn]struct{}
}

// NewWSHub returns an empty hub.
func NewWSHub() *WSHub { return &WSHub{conns: make(map[*WSConn]struct{})} }

// Add puts ws in the hub (a closed connection is not added).
func (h *WSHub) Add(ws *WSConn) {
	ws.mu.Lock()
	if ws.isGone {
		ws.mu.Unlock()
		return
	}
	for _, x := range ws.hubs {
		if x == h {
			ws.mu.Unlock()
			return
		}
	}
	ws.hubs = append(ws.hubs, h)
	ws.mu.Unlock()
	h.mu.Lock()
	h.conns[ws] = struct{}{}
	h.mu.Unlock()
}

// Remove takes ws out of the hub.
func (h *WSHub) Remove(ws *WSConn) {
	h.mu.Lock()
	delete(h.conns, ws)
	h.mu.Unlock()
	ws.mu.Lock()
	for i, x := range ws.hubs {
		if x == h {
			ws.hubs = append(ws.hubs[:i], ws.hubs[i+1:]...)
			break
		}
	}
	ws.mu.Unlock()
}

// Len is the number of connections in the hub.
func (h *WSHub) Len() int {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return len(h.conns)
}

// Broadcast sends one message to every connection of the hub without
// blocking. The frame is encoded once and the same bytes are queued to
// every connection: a plaintext connection with nothing else queued
// hands them to the socket as they are, with no copy of its own; a TLS
// connection encrypts them into its own records (a copy each, inherent to
// TLS). Messages are sent uncompressed (permessage-deflate allows it).
// A connection over its WSConfig.MaxQueued is not waited for: it is
// closed with 1008 (policy violation, "too slow"), so a slow reader never
// silently misses a message and never holds up the others. sent counts the
// connections the message was queued to, dropped those closed for it.
func (h *WSHub) Broadcast(op websocket.Opcode, data []byte) (sent, dropped int) {
	frame := websocket.AppendFrame(nil, op, true, data)
	var slow []*WSConn
	h.mu.RLock()
	for ws := range h.conns {
		switch ws.writeShared(frame) {
		case nil:
			sent++
		case ErrSlowClient:
			slow = append(slow, ws)
		}
	}
	h.mu.RUnlock()
	for _, ws := range slow {
		_ = ws.Close(websocket.ClosePolicyViolation, "too slow")
		dropped++
	}
	return sent, dropped
}
