// Command idleconns opens many idle keep-alive connections to a server and
// holds them, so that the benchmark runner can read the server's memory per
// connection. Each connection sends one GET, reads the whole response and
// then stays open and silent. Once every connection has been tried it prints
// one JSON line (parse.Idle) and holds them until its standard input closes,
// it gets SIGINT/SIGTERM, or -hold runs out.
//
//	idleconns -addr 127.0.0.1:8080 -n 10000
//	idleconns -addr 127.0.0.1:8443 -n 5000 -tls
//	idleconns -addr 127.0.0.1:8443 -n 5000 -tls -h2
//	idleconns -addr 127.0.0.1:8080 -n 10000 -sse -path '/events?n=100000&ms=60000'
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/net/http2"

	"github.com/gwist/gwist/benchmarks/internal/parse"
)

type config struct {
	addr, path    string
	n, parallel   int
	useTLS, sse   bool
	h2            bool
	timeout, hold time.Duration
}

func main() {
	var c config
	flag.StringVar(&c.addr, "addr", "127.0.0.1:8080", "server host:port")
	flag.IntVar(&c.n, "n", 10000, "connections to open")
	flag.IntVar(&c.parallel, "c", 32, "connections being opened at once")
	flag.BoolVar(&c.useTLS, "tls", false, "use TLS (certificate not verified)")
	flag.StringVar(&c.path, "path", "/", "request path")
	flag.BoolVar(&c.h2, "h2", false, "speak HTTP/2: h2 through ALPN with -tls, h2c by prior knowledge without")
	flag.BoolVar(&c.sse, "sse", false, "the path is a Server-Sent Events stream: read its head and first event, then hold it open")
	flag.DurationVar(&c.timeout, "timeout", 10*time.Second, "per-connection setup timeout")
	flag.DurationVar(&c.hold, "hold", 5*time.Minute, "longest time to hold the connections")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	conns, res := open(ctx, c)
	res.Seconds = time.Since(start).Seconds()
	line, _ := json.Marshal(res)
	fmt.Println(string(line))
	hold(ctx, c.hold)
	for _, nc := range conns {
		nc.Close()
	}
}

// hold returns when stdin reaches EOF, ctx is done, or d has passed.
func hold(ctx context.Context, d time.Duration) {
	eof := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(eof)
	}()
	select {
	case <-eof:
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// open opens c.n connections, c.parallel at a time.
func open(ctx context.Context, c config) ([]net.Conn, parse.Idle) {
	res := parse.Idle{Addr: c.addr, TLS: c.useTLS, Requested: c.n, Errors: map[string]int64{}}
	req := []byte(fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: idleconns\r\n\r\n", c.path, c.addr))
	cfg := &tls.Config{InsecureSkipVerify: true}
	if c.h2 {
		cfg.NextProtos = []string{"h2"}
	}
	var (
		mu    sync.Mutex
		conns = make([]net.Conn, 0, c.n)
		next  atomic.Int64
		wg    sync.WaitGroup
	)
	for range max(1, c.parallel) {
		wg.Go(func() {
			for next.Add(1) <= int64(c.n) && ctx.Err() == nil {
				nc, kind := openOne(c, cfg, req)
				mu.Lock()
				if kind != "" {
					res.Errors[kind]++
				} else {
					conns = append(conns, nc)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.Open = len(conns)
	return conns, res
}

// openOne dials, handshakes if asked, does one request and returns the
// idle connection, or the kind of failure.
func openOne(c config, cfg *tls.Config, req []byte) (net.Conn, string) {
	raw, err := net.DialTimeout("tcp", c.addr, c.timeout)
	if err != nil {
		return nil, "dial"
	}
	_ = raw.SetDeadline(time.Now().Add(c.timeout))
	nc := raw
	if c.useTLS {
		tc := tls.Client(raw, cfg)
		if err := tc.Handshake(); err != nil {
			raw.Close()
			return nil, "handshake"
		}
		if c.h2 && tc.ConnectionState().NegotiatedProtocol != "h2" {
			raw.Close()
			return nil, "no-h2"
		}
		nc = tc
	}
	if c.h2 {
		return openH2(c, raw, nc)
	}
	if _, err := nc.Write(req); err != nil {
		nc.Close()
		return nil, "write"
	}
	resp, err := http.ReadResponse(bufio.NewReaderSize(nc, 1024), nil)
	if err != nil {
		nc.Close()
		return nil, "read"
	}
	if c.sse {
		return holdStream(raw, nc, resp)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || resp.Close {
		nc.Close()
		return nil, "response"
	}
	_ = raw.SetDeadline(time.Time{})
	return nc, ""
}

// holdStream reads an event stream's first event (up to its blank line)
// and returns the connection, left open with the stream running.
func holdStream(raw, nc net.Conn, resp *http.Response) (net.Conn, string) {
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		nc.Close()
		return nil, "response"
	}
	br := bufio.NewReaderSize(resp.Body, 256)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			nc.Close()
			return nil, "read"
		}
		if line == "\n" {
			break
		}
	}
	_ = raw.SetDeadline(time.Time{})
	return nc, ""
}

// openH2 does one HTTP/2 GET over nc (TLS with ALPN h2, or h2c by prior
// knowledge) and returns the connection, open and idle.
func openH2(c config, raw, nc net.Conn) (net.Conn, string) {
	tr := &http2.Transport{AllowHTTP: true}
	cc, err := tr.NewClientConn(nc)
	if err != nil {
		nc.Close()
		return nil, "h2-setup"
	}
	scheme := "http"
	if c.useTLS {
		scheme = "https"
	}
	req, _ := http.NewRequest("GET", scheme+"://"+c.addr+c.path, nil)
	resp, err := cc.RoundTrip(req)
	if err != nil {
		nc.Close()
		return nil, "read"
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		nc.Close()
		return nil, "response"
	}
	_ = raw.SetDeadline(time.Time{})
	return nc, ""
}
