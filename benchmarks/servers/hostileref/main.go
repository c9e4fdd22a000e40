// Command hostileref is the reference server of the hostile-client
// measurements (issue 21, benchmarks/cmd/hostile): net/http with
// gorilla/websocket v1.5.3, serving the routes of examples/hello that the
// attacks aim at, written the plain way (no limits or timeouts added:
// net/http's and gorilla's defaults are what is compared).
//
//	hostileref [-addr 127.0.0.1:8080] [-tls-addr ADDR [-cert F -key F]]
//
//	GET  /              200 text/plain "Hello, World!"
//	GET  /ws            a WebSocket echoing every message (gorilla: one
//	                    goroutine per connection reading and writing back;
//	                    gorilla's default ping handler answers pings)
//	POST /upload        reads the body to its end and answers
//	                    {"bytes":N,"sha256":"<hex>"}, as examples/hello
//	GET  /debug/pprof/  net/http/pprof
//
// The plaintext listener speaks HTTP/1.1 and h2c by prior knowledge
// (http.Protocols with UnencryptedHTTP2); -tls-addr adds HTTPS with h2.
package main

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"net/http/pprof"

	"github.com/gorilla/websocket"

	"github.com/gwist/gwist/benchmarks/internal/serve"
)

// upgrader keeps gorilla's defaults (no compression: the attacks offer
// none) and accepts any Origin.
var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

func main() {
	f := serve.RegisterFlags(flag.CommandLine, "127.0.0.1:8080")
	flag.Parse()
	h := handler()
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	protocols.SetUnencryptedHTTP2(true)
	errc := make(chan error, 2)
	if f.Addr != "" {
		ln, err := net.Listen("tcp", f.Addr)
		if err != nil {
			serve.Fatal("hostileref", err)
		}
		srv := &http.Server{Handler: h, Protocols: protocols}
		go func() { errc <- srv.Serve(ln) }()
		serve.Announce("http", ln.Addr().String())
	}
	if f.TLSAddr != "" {
		certPEM, keyPEM, err := f.KeyPair()
		if err != nil {
			serve.Fatal("hostileref", err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			serve.Fatal("hostileref", err)
		}
		ln, err := net.Listen("tcp", f.TLSAddr)
		if err != nil {
			serve.Fatal("hostileref", err)
		}
		srv := &http.Server{Handler: h, Protocols: protocols,
			TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}}}
		go func() { errc <- srv.ServeTLS(ln, "", "") }()
		serve.Announce("https", ln.Addr().String())
	}
	if f.Addr == "" && f.TLSAddr == "" {
		serve.Fatal("hostileref", errors.New("both -addr and -tls-addr are empty"))
	}
	go func() { serve.WaitSignal(); errc <- nil }()
	if err := <-errc; err != nil {
		serve.Fatal("hostileref", err)
	}
}

// handler is the routes: the benchmark servers' GET / (and /json, /echo,
// /events, /download) from serve.StdHandler, plus /ws, /upload and pprof.
func handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", serve.StdHandler())
	mux.HandleFunc("GET "+serve.WSPath, echo)
	mux.HandleFunc("POST /upload", upload)
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
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

// upload is POST /upload: the body's length and sha256, read to its end,
// answered as examples/hello does.
func upload(w http.ResponseWriter, r *http.Request) {
	h := sha256.New()
	n, err := io.Copy(h, r.Body)
	if err != nil {
		http.Error(w, "reading the body: "+err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(struct {
		Bytes  int64  `json:"bytes"`
		SHA256 string `json:"sha256"`
	}{n, hex.EncodeToString(h.Sum(nil))})
}
