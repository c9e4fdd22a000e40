package serve

import (
	"io"
	"net/http"
	"strconv"
)

// StdHandler returns the three benchmark routes as a net/http Handler on a
// ServeMux; unknown paths get 404 and wrong methods 405. It sets
// Content-Length itself, so that servers which would otherwise stream
// (nbhttp answers with chunked encoding) send the same framing as the others.
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
	return mux
}
