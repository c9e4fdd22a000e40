// Command nbio is the lesismal/nbio peer of the gwist benchmarks: an
// nbhttp.Engine (epoll reactor, handlers on its goroutine pool) serving
// GET /, GET /json and POST /echo over plaintext and HTTPS (HTTP/1.1 only;
// nbhttp's TLS is lesismal/llib's non-blocking fork of crypto/tls).
package main

import (
	"errors"
	"flag"
	"runtime"

	"github.com/lesismal/llib/std/crypto/tls"
	"github.com/lesismal/nbio/nbhttp"

	"github.com/gwist/gwist/benchmarks/internal/serve"
)

func main() {
	f := serve.RegisterFlags(flag.CommandLine, "127.0.0.1:8080")
	flag.Parse()
	if f.Addr == "" && f.TLSAddr == "" {
		serve.Fatal("nbio", errors.New("both -addr and -tls-addr are empty"))
	}
	conf := nbhttp.Config{
		Network:         "tcp",
		Handler:         serve.StdHandler(),
		MaxLoad:         1 << 20, // the default (10k) would refuse the idle-memory workload
		NPoller:         runtime.NumCPU(),
		MaxHTTPBodySize: serve.MaxEchoBody,
	}
	if f.Addr != "" {
		conf.Addrs = []string{f.Addr}
	}
	if f.TLSAddr != "" {
		certPEM, keyPEM, err := f.KeyPair()
		if err != nil {
			serve.Fatal("nbio", err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			serve.Fatal("nbio", err)
		}
		conf.AddrsTLS = []string{f.TLSAddr}
		conf.TLSConfig = &tls.Config{Certificates: []tls.Certificate{pair}}
	}
	engine := nbhttp.NewEngine(conf)
	if err := engine.Start(); err != nil {
		serve.Fatal("nbio", err)
	}
	if f.Addr != "" {
		serve.Announce("http", f.Addr)
	}
	if f.TLSAddr != "" {
		serve.Announce("https", f.TLSAddr)
	}
	serve.WaitSignal()
	engine.Stop()
}
