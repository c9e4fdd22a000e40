// Command nethttp is the net/http peer of the gwist benchmarks: an
// http.Server answering GET /, GET /json and POST /echo, over plaintext
// (HTTP/1.1 and prior-knowledge h2c) and HTTPS (HTTP/1.1 and h2 via ALPN).
// With -static-dir it also serves that directory's files at /static/
// through http.FileServer (the peer of gwist's Static in
// scripts/static-file.sh).
package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"net"
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
	protocols := new(http.Protocols)
	protocols.SetHTTP1(true)
	protocols.SetHTTP2(true)
	protocols.SetUnencryptedHTTP2(true)
	errc := make(chan error, 2)
	if f.Addr != "" {
		ln, err := net.Listen("tcp", f.Addr)
		if err != nil {
			serve.Fatal("nethttp", err)
		}
		srv := &http.Server{Handler: h, Protocols: protocols}
		go func() { errc <- srv.Serve(ln) }()
		serve.Announce("http", ln.Addr().String())
	}
	if f.TLSAddr != "" {
		certPEM, keyPEM, err := f.KeyPair()
		if err != nil {
			serve.Fatal("nethttp", err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			serve.Fatal("nethttp", err)
		}
		ln, err := net.Listen("tcp", f.TLSAddr)
		if err != nil {
			serve.Fatal("nethttp", err)
		}
		srv := &http.Server{
			Handler:   h,
			Protocols: protocols,
			TLSConfig: &tls.Config{Certificates: []tls.Certificate{pair}},
		}
		go func() { errc <- srv.ServeTLS(ln, "", "") }()
		serve.Announce("https", ln.Addr().String())
	}
	if f.Addr == "" && f.TLSAddr == "" {
		serve.Fatal("nethttp", errors.New("both -addr and -tls-addr are empty"))
	}
	go func() { serve.WaitSignal(); errc <- nil }()
	if err := <-errc; err != nil {
		serve.Fatal("nethttp", err)
	}
}
