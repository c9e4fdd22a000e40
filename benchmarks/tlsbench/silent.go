package main

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// silentSet is the attack tlsbench -silent mounts while it measures: n
// connections that each send a real ClientHello and then never send
// another byte (they read and discard what the server sends).
type silentSet struct {
	conns  []net.Conn
	wg     sync.WaitGroup
	closed atomic.Int64 // connections the server closed
	failed int64        // dial or write errors while opening
	noResp int64        // no reply from the server within the wait
}

// captureHello returns the bytes of the ClientHello cfg makes, captured
// over an in-memory pipe.
func captureHello(cfg *tls.Config) ([]byte, error) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() { _ = tls.Client(a, cfg.Clone()).Handshake() }()
	_ = b.SetReadDeadline(time.Now().Add(5 * time.Second))
	hdr := make([]byte, 5)
	if _, err := io.ReadFull(b, hdr); err != nil {
		return nil, err
	}
	if hdr[0] != 0x16 {
		return nil, errors.New("first record is not a handshake record")
	}
	body := make([]byte, int(hdr[3])<<8|int(hdr[4]))
	if _, err := io.ReadFull(b, body); err != nil {
		return nil, err
	}
	return append(hdr, body...), nil
}

// openSilent opens n silent connections, 64 dials at a time. A reader per
// connection notes the server's first byte (or its close), then drains what
// the server sends and counts its close. openSilent returns once every
// connection has had its reply, or wait after the last one opened: by then
// the server has done its work for each of them, or is not going to.
func openSilent(ctx context.Context, addr string, n int, hello []byte, wait time.Duration) *silentSet {
	s := &silentSet{conns: make([]net.Conn, n)}
	var failed, opened, replied atomic.Int64
	var opening sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i := 0; i < n && ctx.Err() == nil; i++ {
		sem <- struct{}{}
		opening.Go(func() {
			defer func() { <-sem }()
			d := net.Dialer{Timeout: 10 * time.Second}
			c, err := d.DialContext(ctx, "tcp", addr)
			if err != nil {
				failed.Add(1)
				return
			}
			s.conns[i] = c
			if _, err := c.Write(hello); err != nil {
				failed.Add(1)
				return
			}
			opened.Add(1)
			s.wg.Go(func() {
				var b [1]byte
				_, _ = c.Read(b[:])
				replied.Add(1)
				_, _ = io.Copy(io.Discard, c)
				s.closed.Add(1)
			})
		})
	}
	opening.Wait()
	deadline := time.Now().Add(wait)
	for replied.Load() < opened.Load() && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	s.failed, s.noResp = failed.Load(), opened.Load()-replied.Load()
	return s
}

// close closes every connection and waits for the readers.
func (s *silentSet) close() {
	for _, c := range s.conns {
		if c != nil {
			c.Close()
		}
	}
	s.wg.Wait()
}
