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
//
// With -silent N it first opens N connections that each send a ClientHello
// and then go silent, waits until the server has replied to each (or for
// -silent-wait), holds them while it measures, and reports how many of them
// the server closed meanwhile.
//
//	tlsbench -addr 127.0.0.1:8443 -t 8 -d 10s -nodelay -silent 10000
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

	"github.com/gwist/gwist/benchmarks/internal/parse"
)

type config struct {
	addr, path, caFile               string
	clients                          int
	duration, timeout                time.Duration
	count                            int64
	nodelay, tls12, resume, insecure bool
	asJSON                           bool
	silent                           int
	silentWait                       time.Duration
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
	flag.IntVar(&c.silent, "silent", 0, "hold this many connections that send a ClientHello and go silent during the run")
	flag.DurationVar(&c.silentWait, "silent-wait", 5*time.Second, "after the last silent connection opened, how long to wait for the server's replies to them before measuring")
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
	var silent *silentSet
	if c.silent > 0 {
		hello, err := captureHello(cfg)
		if err != nil {
			return fmt.Errorf("capturing a ClientHello: %w", err)
		}
		start := time.Now()
		silent = openSilent(ctx, c.addr, c.silent, hello, c.silentWait)
		if !c.asJSON {
			fmt.Printf("opened %d silent connections in %.1fs (%d failed, %d got no reply, %d closed by the server)\n",
				c.silent, time.Since(start).Seconds(), silent.failed, silent.noResp, silent.closed.Load())
		}
	}
	closedBefore := int64(0)
	if silent != nil {
		closedBefore = silent.closed.Load()
	}
	res := runLoad(ctx, c, cfg)
	if silent != nil {
		res.Silent = &parse.Silent{Requested: int64(c.silent), Failed: silent.failed, NoReply: silent.noResp,
			ClosedBefore: closedBefore, ClosedDuring: silent.closed.Load() - closedBefore}
		silent.close()
	}
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
