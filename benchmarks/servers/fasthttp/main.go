// Command fasthttp is the valyala/fasthttp peer of the gwist benchmarks:
// GET /, GET /json and POST /echo over plaintext and HTTPS (HTTP/1.1 only;
// fasthttp does not speak HTTP/2).
package main

import (
	"errors"
	"flag"
	"net"

	"github.com/valyala/fasthttp"

	"github.com/gwist/gwist/benchmarks/internal/serve"
)

func newServer() *fasthttp.Server {
	return &fasthttp.Server{
		Handler:            handle,
		Name:               "fasthttp",
		MaxRequestBodySize: serve.MaxEchoBody,
	}
}

func main() {
	f := serve.RegisterFlags(flag.CommandLine, "127.0.0.1:8080")
	flag.Parse()
	if f.Addr == "" && f.TLSAddr == "" {
		serve.Fatal("fasthttp", errors.New("both -addr and -tls-addr are empty"))
	}
	errc := make(chan error, 3)
	if f.Addr != "" {
		ln, err := net.Listen("tcp4", f.Addr)
		if err != nil {
			serve.Fatal("fasthttp", err)
		}
		go func() { errc <- newServer().Serve(ln) }()
		serve.Announce("http", ln.Addr().String())
	}
	if f.TLSAddr != "" {
		certPEM, keyPEM, err := f.KeyPair()
		if err != nil {
			serve.Fatal("fasthttp", err)
		}
		ln, err := net.Listen("tcp4", f.TLSAddr)
		if err != nil {
			serve.Fatal("fasthttp", err)
		}
		go func() { errc <- newServer().ServeTLSEmbed(ln, certPEM, keyPEM) }()
		serve.Announce("https", ln.Addr().String())
	}
	go func() { serve.WaitSignal(); errc <- nil }()
	if err := <-errc; err != nil {
		serve.Fatal("fasthttp", err)
	}
}
