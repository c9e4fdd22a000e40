// Command nethttp is the net/http peer of the gwist benchmarks: an
// http.Server answering GET /, GET /json and POST /echo, over plaintext
// (HTTP/1.1 and prior-knowledge h2c) and HTTPS (HTTP/1.1 and h2 via ALPN).
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
	flag.Parse()
	h := serve.StdHandler()
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
