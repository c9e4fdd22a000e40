package serve

import (
	"bytes"
	"fmt"
	"net/http"
	"strconv"
)

// The routes of the WebSocket peers (servers/wsgorilla, servers/wsnbio,
// servers/wsgwist).
const (
	// WSPath upgrades to a WebSocket that echoes every message, text and
	// binary, as examples/hello's /ws does.
	WSPath = "/ws"
	// WSSubPath upgrades to a WebSocket that receives every broadcast; what
	// the client sends on it is read and dropped.
	WSSubPath = "/ws/sub"
	// BroadcastPath answers POST ?bytes=N (default 1024) by handing one
	// binary message of N bytes to every subscriber of WSSubPath, then 200
	// with BroadcastReply's text.
	BroadcastPath = "/broadcast"
)

// MaxBroadcast bounds the ?bytes= of a broadcast.
const MaxBroadcast = 1 << 20

// BroadcastSize reads ?bytes= of a broadcast request: 1024 when absent.
func BroadcastSize(r *http.Request) (int, error) {
	return ParseBroadcastSize(r.URL.Query().Get("bytes"))
}

// ParseBroadcastSize parses the value of ?bytes= ("" gives 1024).
func ParseBroadcastSize(s string) (int, error) {
	if s == "" {
		return 1024, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > MaxBroadcast {
		return 0, fmt.Errorf("bytes must be 0..%d", MaxBroadcast)
	}
	return n, nil
}

// BroadcastPayload is the message of a broadcast of n bytes.
func BroadcastPayload(n int) []byte { return bytes.Repeat([]byte{'b'}, n) }

// BroadcastReply is the body of a broadcast's 200: how many subscribers
// the message was handed to and how many were skipped (a full queue).
func BroadcastReply(sent, dropped int) string {
	return fmt.Sprintf("sent %d dropped %d\n", sent, dropped)
}

// ServeBroadcast checks a broadcast request's method and size, calls send
// with the payload, and answers with BroadcastReply of what send returned.
func ServeBroadcast(w http.ResponseWriter, r *http.Request, send func(msg []byte) (sent, dropped int)) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	n, err := BroadcastSize(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	sent, dropped := send(BroadcastPayload(n))
	body := BroadcastReply(sent, dropped)
	w.Header().Set("Content-Type", TextType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, _ = w.Write([]byte(body))
}
