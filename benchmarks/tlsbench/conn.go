package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// sample is the timing of one successful connection.
type sample struct {
	connect, handshake, request, total time.Duration
	resumed                            bool
}

// connErr is a failed connection, with the kind it is counted under.
type connErr struct {
	kind string
	err  error
}

func (e *connErr) Error() string { return e.kind + ": " + e.err.Error() }

// client opens connections one at a time; each worker goroutine owns one.
type client struct {
	addr    string
	nodelay bool
	timeout time.Duration
	tls     *tls.Config
	request []byte
	br      *bufio.Reader
}

func newClient(addr, path string, nodelay bool, timeout time.Duration, cfg *tls.Config) *client {
	req := fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: tlsbench\r\n\r\n", path, addr)
	return &client{addr: addr, nodelay: nodelay, timeout: timeout, tls: cfg,
		request: []byte(req), br: bufio.NewReaderSize(nil, 4096)}
}

// once runs one connection: TCP connect, TLS handshake, one GET, read the
// whole response (by its Content-Length or chunked framing), close. The
// client closes first (close_notify, then FIN), so TIME_WAIT lands on the
// client's ephemeral port rather than piling up on the server's port.
func (c *client) once(ctx context.Context) (s sample, err error) {
	start := time.Now()
	d := net.Dialer{Timeout: c.timeout}
	raw, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return s, &connErr{"dial", err}
	}
	defer raw.Close()
	// Go's dialer turns Nagle off; churn clients in the wild (ab, OpenSSL
	// s_client, most C libraries) leave it on, so say which one we want.
	if tcp, ok := raw.(*net.TCPConn); ok {
		if err := tcp.SetNoDelay(c.nodelay); err != nil {
			return s, &connErr{"dial", err}
		}
	}
	connected := time.Now()
	_ = raw.SetDeadline(start.Add(c.timeout))
	tc := tls.Client(raw, c.tls)
	defer tc.Close()
	if err := tc.HandshakeContext(ctx); err != nil {
		return s, &connErr{"handshake", err}
	}
	handshaken := time.Now()
	s.resumed = tc.ConnectionState().DidResume
	if _, err := tc.Write(c.request); err != nil {
		return s, &connErr{"write", err}
	}
	c.br.Reset(tc)
	if _, err := c.br.Peek(1); err != nil {
		return s, &connErr{"read", err}
	}
	firstByte := time.Now()
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return s, &connErr{"read", err}
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil && !errors.Is(err, io.EOF) {
		return s, &connErr{"body", err}
	}
	if resp.ContentLength >= 0 && n != resp.ContentLength {
		return s, &connErr{"body", fmt.Errorf("read %d of %d body bytes", n, resp.ContentLength)}
	}
	if resp.StatusCode != http.StatusOK {
		return s, &connErr{"status", fmt.Errorf("status %d", resp.StatusCode)}
	}
	done := time.Now()
	s.connect = connected.Sub(start)
	s.handshake = handshaken.Sub(connected)
	s.request = firstByte.Sub(handshaken)
	s.total = done.Sub(start)
	return s, nil
}
