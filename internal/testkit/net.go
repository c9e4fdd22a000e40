package testkit

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"sync"
	"syscall"
	"testing"
	"time"
)

// FreeAddr returns a loopback address ("127.0.0.1:PORT") whose port was
// free a moment ago, for a server that must be told its address before it
// listens (a child process, HAProxy's configuration). It never returns a
// port it returned before in this process: the kernel may hand the same
// free port out again, and two addresses a test asked for (its server's
// and pebble's, say) then collide ("address already in use").
func FreeAddr(t testing.TB) string {
	t.Helper()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		if freeAddrs.claim(addr) {
			return addr
		}
	}
	t.Fatal("FreeAddr: 100 ports in a row had been handed out before")
	return ""
}

// freeAddrs is the set of addresses FreeAddr has returned.
var freeAddrs handedOut

type handedOut struct {
	mu    sync.Mutex
	addrs map[string]bool
}

// claim records addr and reports whether it was new.
func (h *handedOut) claim(addr string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.addrs[addr] {
		return false
	}
	if h.addrs == nil {
		h.addrs = make(map[string]bool)
	}
	h.addrs[addr] = true
	return true
}

// DialOption changes how Dial connects.
type DialOption func(*dialConfig)

type dialConfig struct {
	d      net.Dialer
	rcvbuf int
	sndbuf int
}

// RecvBuffer sets the socket's receive buffer (SO_RCVBUF) to n bytes
// before it connects, so that the window it offers the server is small
// from the start: a client that reads slowly, or not at all, backs the
// server up quickly.
func RecvBuffer(n int) DialOption { return func(c *dialConfig) { c.rcvbuf = n } }

// SendBuffer sets the socket's send buffer (SO_SNDBUF) to n bytes before
// it connects.
func SendBuffer(n int) DialOption { return func(c *dialConfig) { c.sndbuf = n } }

// From binds the socket to the local address ip before it connects (say
// 127.0.0.2, a loopback address the server does not trust).
func From(ip net.IP) DialOption {
	return func(c *dialConfig) { c.d.LocalAddr = &net.TCPAddr{IP: ip} }
}

// Dial connects to addr over TCP and closes the connection when the test
// ends. It sets no deadline: the test sets the ones it needs.
func Dial(t testing.TB, addr string, opts ...DialOption) *net.TCPConn {
	t.Helper()
	c, err := Dialer(opts...)(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*net.TCPConn)
}

// Dialer returns a dial function with opts, for a Transport's DialContext
// or a client that dials by itself.
func Dialer(opts ...DialOption) func(ctx context.Context, network, addr string) (net.Conn, error) {
	var cfg dialConfig
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.rcvbuf > 0 || cfg.sndbuf > 0 {
		cfg.d.Control = func(_, _ string, rc syscall.RawConn) error {
			var serr error
			err := rc.Control(func(fd uintptr) { serr = setBuffers(fd, cfg.rcvbuf, cfg.sndbuf) })
			return errors.Join(err, serr)
		}
	}
	return cfg.d.DialContext
}

// DialTLS connects to addr with cfg, completes the handshake (failing the
// test if it fails) and closes the connection when the test ends. The
// connection has a 10 s deadline, which the test may move.
func DialTLS(t testing.TB, addr string, cfg *tls.Config, opts ...DialOption) *tls.Conn {
	t.Helper()
	raw := Dial(t, addr, opts...)
	_ = raw.SetDeadline(time.Now().Add(10 * time.Second))
	c := tls.Client(raw, cfg)
	if err := c.Handshake(); err != nil {
		t.Fatalf("TLS handshake with %s: %v", addr, err)
	}
	return c
}
