//go:build unix

package engine

import (
	"context"
	"log/slog"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// The engine test harness: a Server that is never started, driven by the
// test goroutine as if it were the event loop, over connections that are
// real socket pairs behind a fake gnet.Conn, with the server's clock set by
// the test. Timers (header, body, idle and write timeouts, keepalives, the
// sweep, the drain) are then tested by advancing the clock, and a driver's
// state machine step by step, without sleeping and without gnet.
//
//   - The server end of each socket pair is the connection's fd: what the
//     engine writes, through the fake Write or directly from a worker
//     (direct.go), reaches the test's end in order.
//   - What the test sends goes into the fake's inbound buffer, and
//     onTraffic is called at once, on the test goroutine.
//   - Execute queues tasks (workers call it); the test runs them with run,
//     as the loop would, which makes every hand-off visible.
//   - The clocks (the coarse one of the timers, and the wall clock of the
//     drain's grace) stand still unless the test moves them (advance,
//     which also runs the sweep).

// harness is one Server under test.
type harness struct {
	t    testing.TB
	srv  *Server
	loop *fakeLoop
	now  time.Time
}

// newHarness makes a Server for cfg and h. Workers, when cfg needs them, are
// a real pool (handlers run on goroutines; their results come back as
// tasks for run).
func newHarness(t testing.TB, cfg Config, h Handler) *harness {
	t.Helper()
	if !cfg.Inline && cfg.Workers == nil {
		w, err := NewWorkers(8)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = w.Release(time.Second) })
		cfg.Workers = w
	}
	if cfg.Logger == nil {
		cfg.Logger = discardLogger()
	}
	s, err := NewServer(cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	hs := &harness{t: t, srv: s, loop: &fakeLoop{}, now: time.Unix(1_000_000, 0)}
	s.clock.Store(hs.now.UnixNano())
	s.wallClock = func() time.Time { return hs.now }
	return hs
}

// dial opens a connection: a socket pair whose server end the engine gets
// through onOpen.
func (h *harness) dial() *peer {
	h.t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, fd := range fds {
		if err := unix.SetNonblock(fd, true); err != nil {
			h.t.Fatal(err)
		}
	}
	// Small buffers, so that a peer that does not read backs up quickly.
	for _, fd := range fds {
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 16<<10)
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 16<<10)
	}
	fc := &fakeConn{fd: fds[0], loop: h.loop, srv: h.srv}
	p := &peer{h: h, fc: fc, f: os.NewFile(uintptr(fds[1]), "peer")}
	h.t.Cleanup(func() { p.f.Close(); p.fc.closeFD() })
	if !h.srv.limit.reserve() { // as the accept goroutine does
		h.t.Fatal("the connection limit has no room")
	}
	if _, action := h.srv.onOpen(fc); action == gnet.Close {
		fc.closeNow()
	}
	h.run()
	return p
}

// run runs the loop's queued tasks (workers' results, flushes, credits)
// until none is left, then closes what the engine asked to close.
func (h *harness) run() {
	for range 10000 {
		task, ok := h.loop.pop()
		if !ok {
			return
		}
		_ = task.Run(context.Background())
	}
	h.t.Fatal("the loop's tasks do not end")
}

// runUntil runs tasks until cond holds, waiting for workers meanwhile (up
// to 5 s of real time: handlers run on goroutines).
func (h *harness) runUntil(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		h.run()
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out waiting for %s", what)
		}
		h.loop.wait(10 * time.Millisecond)
	}
}

// waitTasks waits (up to 5 s) until n tasks are queued for the loop,
// without running them: the test then acts between a hand-off and its run.
func (h *harness) waitTasks(n int) {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		h.loop.mu.Lock()
		queued := len(h.loop.tasks)
		h.loop.mu.Unlock()
		if queued >= n {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("%d tasks queued for the loop, want %d", queued, n)
		}
		time.Sleep(time.Millisecond) // loop.wait returns at once while any task is queued
	}
}

// advance moves the server's clock by d and runs the sweep, as the tick
// would (the tick's period is not simulated: one sweep at the end).
func (h *harness) advance(d time.Duration) {
	h.now = h.now.Add(d)
	h.srv.clock.Store(h.now.UnixNano())
	h.srv.noteHeld(h.now)
	h.srv.sweepAll()
	h.run()
}

// peer is the client's end of a harness connection.
type peer struct {
	h  *harness
	fc *fakeConn
	f  *os.File
}

// send delivers b to the engine as one read, and runs the loop's tasks.
func (p *peer) send(b string) {
	p.h.t.Helper()
	fc := p.fc
	if fc.closed {
		p.h.t.Fatal("send on a connection the engine closed")
	}
	fc.in = append(fc.in, b...)
	if p.h.srv.onTraffic(fc) == gnet.Close {
		fc.closeNow()
	}
	p.h.run()
}

// read returns what the engine has written so far (after flushing what
// the fake held for a full socket).
func (p *peer) read() string {
	var out []byte
	buf := make([]byte, 64<<10)
	for {
		p.fc.flushOutbound()
		n, err := unix.Read(int(p.f.Fd()), buf)
		if n > 0 {
			out = append(out, buf[:n]...)
			continue
		}
		if err != nil || n == 0 {
			return string(out)
		}
	}
}

// closed reports whether the engine closed the connection (OnClose ran).
func (p *peer) closed() bool { return p.fc.closed }

// fakeLoop is a gnet.EventLoop whose tasks the test runs (harness.run).
type fakeLoop struct {
	gnet.EventLoop // only the methods below are used
	mu             sync.Mutex
	tasks          []gnet.Runnable
	ready          chan struct{}
}

func (l *fakeLoop) Execute(_ context.Context, r gnet.Runnable) error {
	l.mu.Lock()
	l.tasks = append(l.tasks, r)
	ready := l.ready
	l.ready = nil
	l.mu.Unlock()
	if ready != nil {
		close(ready)
	}
	return nil
}

func (l *fakeLoop) Close(gc gnet.Conn) error {
	gc.(*fakeConn).closeNow()
	return nil
}

func (l *fakeLoop) pop() (gnet.Runnable, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.tasks) == 0 {
		return nil, false
	}
	t := l.tasks[0]
	l.tasks = l.tasks[1:]
	return t, true
}

// wait returns when a task is queued, or after d.
func (l *fakeLoop) wait(d time.Duration) {
	l.mu.Lock()
	if len(l.tasks) > 0 {
		l.mu.Unlock()
		return
	}
	if l.ready == nil {
		l.ready = make(chan struct{})
	}
	ready := l.ready
	l.mu.Unlock()
	select {
	case <-ready:
	case <-time.After(d):
	}
}

// fakeConn is a gnet.Conn over the server end of a socket pair: the input
// is what the peer sent (the test puts it there), the output goes to the
// fd, and what the socket does not take waits in out, as in gnet's
// outbound buffer.
type fakeConn struct {
	gnet.Conn // only the methods below are used
	fd        int
	loop      *fakeLoop
	srv       *Server
	ctx       any
	in        []byte
	out       []byte
	closed    bool
	fdClosed  bool
}

func (c *fakeConn) Peek(n int) ([]byte, error) {
	if n < 0 || n > len(c.in) {
		return c.in, nil
	}
	return c.in[:n], nil
}

func (c *fakeConn) Next(n int) ([]byte, error) {
	b, _ := c.Peek(n)
	c.in = c.in[len(b):]
	return b, nil
}

func (c *fakeConn) Discard(n int) (int, error) {
	if n < 0 || n > len(c.in) {
		n = len(c.in)
	}
	c.in = c.in[n:]
	return n, nil
}

func (c *fakeConn) InboundBuffered() int  { return len(c.in) }
func (c *fakeConn) OutboundBuffered() int { return len(c.out) }

func (c *fakeConn) Write(p []byte) (int, error) {
	if c.closed {
		return 0, net.ErrClosed
	}
	c.out = append(c.out, p...)
	c.flushOutbound()
	return len(p), nil
}

func (c *fakeConn) Writev(bs [][]byte) (int, error) {
	n := 0
	for _, b := range bs {
		k, err := c.Write(b)
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (c *fakeConn) Flush() error { c.flushOutbound(); return nil }

// flushOutbound writes what the socket takes of out.
func (c *fakeConn) flushOutbound() {
	for len(c.out) > 0 && !c.fdClosed {
		n, err := unix.Write(c.fd, c.out)
		if n > 0 {
			c.out = c.out[n:]
		}
		if err != nil || n <= 0 {
			return
		}
	}
	if len(c.out) == 0 {
		c.out = nil
	}
}

func (c *fakeConn) Fd() int                   { return c.fd }
func (c *fakeConn) Context() any              { return c.ctx }
func (c *fakeConn) SetContext(ctx any)        { c.ctx = ctx }
func (c *fakeConn) EventLoop() gnet.EventLoop { return c.loop }
func (c *fakeConn) RemoteAddr() net.Addr      { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 4242} }
func (c *fakeConn) LocalAddr() net.Addr       { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 2), Port: 80} }
func (c *fakeConn) SetNoDelay(bool) error     { return nil }
func (c *fakeConn) Close() error              { c.closeNow(); return nil }

// closeNow closes the connection as gnet does: what the socket takes of
// the output is written, the rest dropped, OnClose runs.
func (c *fakeConn) closeNow() {
	if c.closed {
		return
	}
	c.flushOutbound()
	c.closed = true
	c.srv.onClose(c, nil)
	c.closeFD()
}

func (c *fakeConn) closeFD() {
	if !c.fdClosed {
		c.fdClosed = true
		_ = unix.Close(c.fd)
	}
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
