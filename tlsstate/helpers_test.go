package tlsstate

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/testkit"
)

// ---- certificates, generated in-process ----

type testPKI struct {
	pool   *x509.CertPool
	a, b   tls.Certificate // servers for a.example and b.example
	client tls.Certificate // client certificate, CN "client-1"
}

var (
	pkiOnce sync.Once
	pki     testPKI
)

func getPKI(testing.TB) *testPKI {
	pkiOnce.Do(func() {
		ca := testkit.NewCA("gwist test CA")
		pki = testPKI{
			pool:   ca.Pool,
			a:      ca.Server("a.example", "a.example"),
			b:      ca.Server("b.example", "b.example"),
			client: ca.Client("client-1"),
		}
	})
	return &pki
}

// serverTLS is a server config with the a.example certificate.
func serverTLS(t testing.TB) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{getPKI(t).a}}
}

// clientTLS trusts the test CA and expects a.example.
func clientTLS(t testing.TB) *tls.Config {
	return &tls.Config{RootCAs: getPKI(t).pool, ServerName: "a.example"}
}

func newServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	if cfg.TLS == nil {
		cfg.TLS = serverTLS(t)
	}
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ---- a tiny event loop standing in for the engine ----

// loop drives one Conn over a real socket the way the engine does: one
// goroutine owns the Conn; a reader goroutine turns socket reads into
// events; notify wakes the loop.
type loop struct {
	c    *Conn
	nc   net.Conn
	wake chan struct{}
	in   chan []byte
	cmds chan func()
	done chan struct{}

	onPlain func(l *loop, p []byte) // on the loop; default: echo
	err     error                   // why the loop ended; read after done
}

var errSocketGone = errors.New("peer closed the socket")

func startLoop(s *Server, nc net.Conn, onPlain func(*loop, []byte)) *loop {
	l := &loop{
		nc:      nc,
		wake:    make(chan struct{}, 1),
		in:      make(chan []byte),
		cmds:    make(chan func()),
		done:    make(chan struct{}),
		onPlain: onPlain,
	}
	if l.onPlain == nil {
		l.onPlain = func(l *loop, p []byte) {
			if err := l.c.Write(p); err != nil {
				panic(err)
			}
		}
	}
	l.c = s.NewConn(func() {
		select {
		case l.wake <- struct{}{}:
		default:
		}
	})
	go l.read()
	go l.run()
	return l
}

func (l *loop) read() {
	for {
		buf := make([]byte, 32<<10)
		n, err := l.nc.Read(buf)
		if n > 0 {
			select {
			case l.in <- buf[:n]:
			case <-l.done:
				return
			}
		}
		if err != nil {
			close(l.in)
			return
		}
	}
}

func (l *loop) run() {
	defer close(l.done)
	defer l.nc.Close()
	defer l.c.Release()
	for {
		select {
		case b, ok := <-l.in:
			if !ok {
				l.err = errSocketGone
				return
			}
			if !l.feed(b) {
				return
			}
			continue
		case <-l.wake:
		case f := <-l.cmds:
			f()
		}
		if !l.step() {
			return
		}
	}
}

// feed hands b to the Conn in pieces that fit, processing in between, as
// an engine that leaves unread bytes in its socket buffer would.
func (l *loop) feed(b []byte) bool {
	for len(b) > 0 {
		n := min(len(b), l.c.Room())
		if n == 0 {
			// Handshake goroutine still holds the bytes: wait for it.
			select {
			case <-l.wake:
			case <-time.After(5 * time.Second):
				l.err = errors.New("test loop: no room")
				return false
			}
		} else if err := l.c.Feed(b[:n]); err != nil {
			l.flush()
			l.err = err
			return false
		}
		b = b[n:]
		if !l.step() {
			return false
		}
	}
	return true
}

func (l *loop) step() bool {
	plain, err := l.c.Process(nil)
	if len(plain) > 0 {
		l.onPlain(l, plain)
	}
	l.flush()
	if err == io.EOF {
		l.c.CloseNotify()
		l.flush()
		l.err = io.EOF
		return false
	}
	if err != nil {
		l.err = err
		return false
	}
	return true
}

func (l *loop) flush() {
	if out := l.c.AppendOutbound(nil); len(out) > 0 {
		l.nc.Write(out)
	}
}

// do runs f on the loop and waits for it; after the loop ended it runs f
// directly (the Conn is released then, but its getters still answer).
func (l *loop) do(f func(c *Conn)) {
	ran := make(chan struct{})
	select {
	case l.cmds <- func() { f(l.c); close(ran) }:
		<-ran
	case <-l.done:
		f(l.c)
	}
}

func (l *loop) wait(t testing.TB) error {
	t.Helper()
	select {
	case <-l.done:
		return l.err
	case <-time.After(10 * time.Second):
		t.Fatal("server loop did not end")
		return nil
	}
}

// env is a Server behind a loopback listener, one loop per connection.
type env struct {
	t        testing.TB
	s        *Server
	ln       net.Listener
	accepted chan *loop
	wg       sync.WaitGroup

	mu    sync.Mutex
	loops []*loop

	onPlain func(*loop, []byte)
}

func newEnv(t testing.TB, cfg Config) *env {
	t.Helper()
	return newEnvPlain(t, cfg, nil)
}

// newEnvPlain is newEnv with a plaintext handler for the loops (nil: echo).
func newEnvPlain(t testing.TB, cfg Config, onPlain func(*loop, []byte)) *env {
	t.Helper()
	e := &env{t: t, s: newServer(t, cfg), accepted: make(chan *loop, 16), onPlain: onPlain}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.ln = ln
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			l := startLoop(e.s, nc, e.onPlain)
			e.mu.Lock()
			e.loops = append(e.loops, l)
			e.mu.Unlock()
			e.accepted <- l
		}
	}()
	t.Cleanup(e.close)
	return e
}

func (e *env) close() {
	e.ln.Close()
	e.wg.Wait()
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, l := range e.loops {
		l.nc.Close()
		<-l.done
	}
}

// dialRaw connects a plain TCP client and returns it with its server loop.
func (e *env) dialRaw() (net.Conn, *loop) {
	e.t.Helper()
	raw, err := net.Dial("tcp", e.ln.Addr().String())
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { raw.Close() })
	raw.SetDeadline(time.Now().Add(10 * time.Second))
	return raw, <-e.accepted
}

// dial connects a TLS client and completes its handshake.
func (e *env) dial(cfg *tls.Config) (*tls.Conn, *loop, error) {
	e.t.Helper()
	raw, l := e.dialRaw()
	cli := tls.Client(raw, cfg)
	return cli, l, cli.Handshake()
}

// echo writes msg and reads it back.
func echo(t testing.TB, cli *tls.Conn, msg string) {
	t.Helper()
	if _, err := cli.Write([]byte(msg)); err != nil {
		t.Fatalf("client write: %v", err)
	}
	buf := make([]byte, len(msg))
	if _, err := io.ReadFull(cli, buf); err != nil {
		t.Fatalf("client read: %v", err)
	}
	if string(buf) != msg {
		t.Fatalf("echo = %q, want %q", buf, msg)
	}
}

// ---- raw ClientHello bytes, from a real crypto/tls client ----

// captureHello returns the first flight (the ClientHello records) that a
// crypto/tls client with cfg sends.
func captureHello(t testing.TB, cfg *tls.Config) []byte {
	t.Helper()
	a, b := net.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		tls.Client(a, cfg).Handshake()
	}()
	var buf []byte
	var h helloScanner
	chunk := make([]byte, 4096)
	for {
		n, err := b.Read(chunk)
		if err != nil {
			t.Fatalf("capture: %v", err)
		}
		buf = append(buf, chunk[:n]...)
		st, _, err := h.scan(buf)
		if st == helloComplete {
			break
		}
		if st == helloBad {
			t.Fatalf("capture: %v", err)
		}
	}
	a.Close()
	b.Close()
	<-done
	return buf
}

// waitFor waits up to 5 s for cond (testkit.WaitFor).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testkit.WaitFor(t, 5*time.Second, what, cond)
}

// reasonOf returns the Reason in err, or ReasonNone.
func reasonOf(err error) Reason {
	var e *Error
	if errors.As(err, &e) {
		return e.Reason
	}
	return ReasonNone
}

// ---- a synchronous, in-memory driver for byte-exact tests ----

// memConn is the client's side of an in-memory link: its writes collect in
// toServer for the test to take; its reads wait for bytes the test gives.
type memConn struct {
	onWrite  func() // called after each write (set before the client runs)
	mu       sync.Mutex
	cond     *sync.Cond
	toServer []byte
	toClient []byte
	closed   bool
}

func newMemConn() *memConn {
	m := &memConn{}
	m.cond = sync.NewCond(&m.mu)
	return m
}

func (m *memConn) Read(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for len(m.toClient) == 0 && !m.closed {
		m.cond.Wait()
	}
	if len(m.toClient) == 0 {
		return 0, io.EOF
	}
	n := copy(p, m.toClient)
	m.toClient = m.toClient[n:]
	return n, nil
}

func (m *memConn) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, net.ErrClosed
	}
	m.toServer = append(m.toServer, p...)
	if m.onWrite != nil {
		m.onWrite()
	}
	return len(p), nil
}

func (m *memConn) Close() error {
	m.mu.Lock()
	m.closed = true
	m.cond.Broadcast()
	m.mu.Unlock()
	return nil
}

// take returns and clears what the client wrote.
func (m *memConn) take() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := m.toServer
	m.toServer = nil
	return b
}

// give hands the client bytes from the server.
func (m *memConn) give(b []byte) {
	if len(b) == 0 {
		return
	}
	m.mu.Lock()
	m.toClient = append(m.toClient, b...)
	m.cond.Broadcast()
	m.mu.Unlock()
}

func (m *memConn) LocalAddr() net.Addr              { return noAddr{} }
func (m *memConn) RemoteAddr() net.Addr             { return noAddr{} }
func (m *memConn) SetDeadline(time.Time) error      { return nil }
func (m *memConn) SetReadDeadline(time.Time) error  { return nil }
func (m *memConn) SetWriteDeadline(time.Time) error { return nil }

// handshakeByHand runs a real crypto/tls client against a fresh Conn of s
// over memory, pumping whenever the client writes or the Conn notifies,
// and returns both once established.
func handshakeByHand(t testing.TB, s *Server, cfg *tls.Config) (*tls.Conn, *Conn, *memConn) {
	t.Helper()
	m := newMemConn()
	cli := tls.Client(m, cfg)
	progress := make(chan struct{}, 1)
	wake := func() {
		select {
		case progress <- struct{}{}:
		default:
		}
	}
	m.onWrite = wake
	c := s.NewConn(wake)
	t.Cleanup(func() { m.Close(); c.Release() })
	errc := make(chan error, 1)
	go func() { errc <- cli.Handshake() }()
	stuck := time.NewTimer(10 * time.Second)
	defer stuck.Stop()
	clientDone := false
	for !clientDone || c.State() != Established {
		if b := m.take(); len(b) > 0 {
			if err := c.Feed(b); err != nil {
				t.Fatalf("Feed: %v", err)
			}
		}
		if _, err := c.Process(nil); err != nil {
			t.Fatalf("Process: %v", err)
		}
		m.give(c.AppendOutbound(nil))
		if clientDone && c.State() == Established {
			break
		}
		select {
		case err := <-errc:
			if err != nil {
				t.Fatalf("client handshake: %v", err)
			}
			clientDone = true
		case <-progress:
		case <-stuck.C:
			t.Fatalf("by-hand handshake stuck in %v", c.State())
		}
	}
	return cli, c, m
}
