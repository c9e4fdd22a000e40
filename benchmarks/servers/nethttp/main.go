// Command nethttp is the net/http peer of the gwist benchmarks: an
// http.Server answering GET /, GET /json and POST /echo, over plaintext
// (HTTP/1.1 and prior-knowledge h2c) and HTTPS (HTTP/1.1 and h2 via ALPN).
// With -static-dir it also serves that directory's files at /static/
// through http.FileServer (the peer of gwist's Static in
// scripts/static-file.sh).
package main

import (
	"flag"
	"net/http"

	"github.com/gwist/gwist/benchmarks/internal/serve"
)

func main() {
	f := serve.RegisterFlags(flag.CommandLine, "127.0.0.1:8080")
	staticDir := flag.String("static-dir", "", "directory served at /static/ by http.FileServer (off when empty)")
	flag.Parse()
	h := serve.StdHandler()
	if *staticDir != "" {
		mux := http.NewServeMux()
		mux.Handle("/static/", http.StripPrefix("/static/", http.FileServer(http.Dir(*staticDir))))
		mux.Handle("/", h)
		h = mux
	}
	serve.NetHTTP("nethttp", f, h)
}
