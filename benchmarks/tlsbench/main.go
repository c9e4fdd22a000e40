// Command tlsbench is the HTTPS connection-churn load generator of the gwist
// benchmarks. Each connection does a TCP connect, a TLS handshake, one
// "GET path HTTP/1.1", reads the whole response and closes (the client
// closes first). It reports connections per second, percentiles of the handshake,
// of the time from handshake done to the first response byte, and of the
// whole connection, and failures by kind.
//
// Nagle is left ON by default (-nodelay=false calls SetNoDelay(false)
// explicitly, because Go's dialer turns it off): that is how most churn
// clients behave, and it is what exposes a server that leaves the client's
// last handshake flight un-ACKed.
//
//	tlsbench -addr 127.0.0.1:8443 -t 8 -d 10s
//	tlsbench -addr 127.0.0.1:8443 -t 1 -n 2000 -nodelay -json
package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"
)

type config struct {
	addr, path, caFile               string
	clients                          int
	duration, timeout                time.Duration
	count                            int64
	nodelay, tls12, resume, insecure bool
	asJSON                           bool
}

func main() {
	var c config
	flag.StringVar(&c.addr, "addr", "127.0.0.1:8443", "server host:port")
	flag.IntVar(&c.clients, "t", 8, "concurrent clients")
	flag.DurationVar(&c.duration, "d", 10*time.Second, "duration (ignored when -n is set)")
	flag.Int64Var(&c.count, "n", 0, "total connections (overrides -d)")
	flag.BoolVar(&c.nodelay, "nodelay", false, "set TCP_NODELAY on client sockets (default: Nagle on)")
	flag.BoolVar(&c.tls12, "tls12", false, "force TLS 1.2")
	flag.StringVar(&c.path, "path", "/", "request path")
	flag.BoolVar(&c.resume, "resume", false, "resume sessions through a shared client session cache")
	flag.BoolVar(&c.insecure, "insecure", true, "skip certificate verification")
	flag.StringVar(&c.caFile, "ca", "", "PEM CA file to verify against when -insecure=false")
	flag.DurationVar(&c.timeout, "timeout", 10*time.Second, "per-connection timeout")
	flag.BoolVar(&c.asJSON, "json", false, "print one JSON object instead of text")
	flag.Parse()
	if err := run(c); err != nil {
		fmt.Fprintln(os.Stderr, "tlsbench:", err)
		os.Exit(1)
	}
}

func run(c config) error {
	if c.clients < 1 {
		return errors.New("-t must be at least 1")
	}
	cfg, err := tlsConfig(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	res := runLoad(ctx, c, cfg)
	if c.asJSON {
		return json.NewEncoder(os.Stdout).Encode(res)
	}
	printText(os.Stdout, res)
	return nil
}

func tlsConfig(c config) (*tls.Config, error) {
	host, _, err := net.SplitHostPort(c.addr)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{ServerName: host, InsecureSkipVerify: c.insecure}
	if c.tls12 {
		cfg.MaxVersion = tls.VersionTLS12
	}
	if c.resume {
		cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4096)
	}
	if !c.insecure && c.caFile != "" {
		pem, err := os.ReadFile(c.caFile)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: no certificates", c.caFile)
		}
		cfg.RootCAs = pool
	}
	return cfg, nil
}
