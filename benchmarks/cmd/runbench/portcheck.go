package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// portFree reports why addr cannot take a new server, or nil. A port is
// free when nothing accepts on it and a listener with SO_REUSEADDR and
// SO_REUSEPORT can bind it. Both options are set because the servers set
// one or the other (net/http: SO_REUSEADDR; gnet: SO_REUSEPORT), and a
// TIME_WAIT socket left by a server blocks a later bind unless the two
// sockets share the option; the connect check catches a live listener,
// which SO_REUSEPORT alone would let us bind beside.
func portFree(addr string) error {
	if c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond); err == nil {
		c.Close()
		return errors.New("something is listening on it")
	}
	lc := net.ListenConfig{Control: func(_, _ string, rc syscall.RawConn) error {
		var serr error
		err := rc.Control(func(fd uintptr) {
			if serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); serr == nil {
				serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_REUSEPORT, 1)
			}
		})
		if err != nil {
			return err
		}
		return serr
	}}
	ln, err := lc.Listen(context.Background(), "tcp", addr)
	if err != nil {
		return err
	}
	return ln.Close()
}

// waitPortFree waits until portFree(addr) holds. TIME_WAIT lasts 60 s on
// Linux, so the limit should be longer than that.
func waitPortFree(ctx context.Context, addr string, limit time.Duration) error {
	start := time.Now()
	warned := false
	for {
		err := portFree(addr)
		if err == nil {
			return nil
		}
		if time.Since(start) > limit {
			return fmt.Errorf("port %s is busy after %v: %w", addr, limit, err)
		}
		if !warned && time.Since(start) > 2*time.Second {
			logf("  waiting for port %s: %v", addr, err)
			warned = true
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}
