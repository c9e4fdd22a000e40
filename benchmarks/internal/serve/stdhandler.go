package serve

import (
	"io"
	"net/http"
	"strconv"
	"time"
)

// StdHandler returns the benchmark routes (GET /, GET /json, POST /echo,
// GET /events) as a net/http Handler on a ServeMux; unknown paths get 404
// and wrong methods 405. It sets Content-Length itself, so that servers
// which would otherwise stream (nbhttp answers with chunked encoding) send
// the same framing as the others.
func StdHandler() http.Handler {
	helloLen := strconv.Itoa(len(HelloBody))
	jsonLen := strconv.Itoa(len(JSONBody))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{TextType}
		h["Content-Length"] = []string{helloLen}
		io.WriteString(w, HelloBody)
	})
	mux.HandleFunc("GET "+JSONPath, func(w http.ResponseWriter, _ *http.Request) {
		h := w.Header()
		h["Content-Type"] = []string{JSONType}
		h["Content-Length"] = []string{jsonLen}
		io.WriteString(w, JSONBody)
	})
	mux.HandleFunc("POST "+EchoPath, func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxEchoBody))
		if err != nil {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if ct := r.Header.Get("Content-Type"); ct != "" {
			w.Header().Set("Content-Type", ct)
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
	})
	mux.HandleFunc("GET "+EventsPath, events)
	return mux
}

// maxEvents and maxEventMillis bound /events' query as examples/hello does.
const (
	maxEvents      = 100000
	maxEventMillis = 60000
)

// events is GET /events with net/http: each event is written and flushed;
// the handler returns after the last one or when the client leaves.
func events(w http.ResponseWriter, r *http.Request) {
	n, ms, ok := eventsQuery(r)
	if !ok {
		http.Error(w, "n and ms must be small non-negative integers", http.StatusBadRequest)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	fl := w.(http.Flusher)
	t := time.NewTicker(max(time.Duration(ms)*time.Millisecond, time.Millisecond))
	defer t.Stop()
	for i := 1; i <= n; i++ {
		if i > 1 {
			select {
			case <-t.C:
			case <-r.Context().Done():
				return
			}
		}
		id := strconv.Itoa(i)
		if _, err := io.WriteString(w, "id: "+id+"\ndata: "+id+"\n\n"); err != nil {
			return
		}
		fl.Flush()
	}
}

func eventsQuery(r *http.Request) (n, ms int, ok bool) {
	n, ms = 3, 100
	q := r.URL.Query()
	var err error
	if v := q.Get("n"); v != "" {
		if n, err = strconv.Atoi(v); err != nil || n < 0 || n > maxEvents {
			return 0, 0, false
		}
	}
	if v := q.Get("ms"); v != "" {
		if ms, err = strconv.Atoi(v); err != nil || ms < 0 || ms > maxEventMillis {
			return 0, 0, false
		}
	}
	return n, ms, true
}
