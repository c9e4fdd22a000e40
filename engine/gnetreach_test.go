//go:build unix

package engine

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// The reaches were verified against these versions: an upgrade fails here
// until someone has re-read gnet's source (gnetreach*.go say what each
// reach relies on) and updated verifiedGnet, verifiedGo and the README.
// Go's patch releases are left to the self-tests.
func TestVerifiedVersions(t *testing.T) {
	if v := gnetVersion(); v != verifiedGnet {
		t.Errorf("built with gnet %s; the reaches past its API were verified with %s", v, verifiedGnet)
	}
	minor := func(v string) string { // go1.26.8 → go1.26
		if i := strings.LastIndexByte(v, '.'); strings.Count(v, ".") == 2 {
			return v[:i]
		}
		return v
	}
	if got := runtime.Version(); minor(got) != minor(verifiedGo) {
		t.Errorf("built with %s; the reach into crypto/tls was verified with %s", got, verifiedGo)
	}
}

// On the gnet this module pins, every gnet self-test passes. A gnet that
// moves a field, registers connections otherwise, closes a connection's fd
// before OnClose or writes behind OutboundBuffered fails here.
func TestGnetReachSelfTestsPass(t *testing.T) {
	if r := probeGnet(discardLogger(), probeHooks{}); r != (probeResult{}) {
		t.Fatalf("a gnet reach failed its self-test: %+v", r)
	}
	if !fdWriteReach.on() {
		t.Errorf("worker writes are off in this process: %s", fdWriteReach.reason())
	}
}

// The worker-writes self-test notices a connection fd that is not the
// socket gnet was given, and one that gnet let go before OnClose.
func TestFDReachSelfTestDetects(t *testing.T) {
	t.Run("fd is not the socket", func(t *testing.T) {
		other := socketPair(t)
		r := probeGnet(discardLogger(), probeHooks{fd: func(gnet.Conn) int { return other[0] }})
		if r.fdWrites == "" {
			t.Fatal("the self-test passed with another socket as the connection's fd")
		}
		t.Log(r.fdWrites)
	})
	t.Run("fd reused before OnClose", func(t *testing.T) {
		other := socketPair(t)
		r := probeGnet(discardLogger(), probeHooks{beforeClose: func(fd int) {
			if err := unix.Dup2(other[1], fd); err != nil { // what fd reuse looks like
				t.Error(err)
			}
		}})
		if r.fdWrites == "" {
			t.Fatal("the self-test passed with another file at the fd's number in OnClose")
		}
		t.Log(r.fdWrites)
	})
	t.Run("checks on OnOpen", func(t *testing.T) {
		probeFDOnOpenDetects(t)
	})
	t.Run("writes out of order", func(t *testing.T) {
		fds := socketPair(t)
		for _, s := range []string{probeGnetW, probeDirect} {
			if _, err := unix.Write(fds[1], []byte(s)); err != nil {
				t.Fatal(err)
			}
		}
		if err := readProbe(fds[0], probeDirect+probeGnetW); err == nil {
			t.Fatal("readProbe accepted gnet's write before the direct one")
		}
	})
}

// withReachOff turns r off for the test.
func withReachOff(t *testing.T, r *reach) {
	t.Helper()
	keepReach(t, r)
	r.turnOff("turned off by " + t.Name())
}

// keepReach puts r back as it was when the test ends.
func keepReach(t *testing.T, r *reach) {
	off, why := r.off.Load(), r.reason()
	t.Cleanup(func() {
		r.mu.Lock()
		r.why = why
		r.mu.Unlock()
		r.off.Store(off)
	})
}

// A failed self-test logs one warning naming the reach and gnet's version
// and shows in Reaches.
func TestReachOffIsLoggedAndReported(t *testing.T) {
	var rec recordLog
	keepReach(t, &readPauseReach)
	keepReach(t, &fdWriteReach)
	applyProbe(slog.New(&rec), probeResult{fdWrites: "broken on purpose"})
	if len(rec.lines) != 1 {
		t.Fatalf("%d log lines, want 1: %q", len(rec.lines), rec.lines)
	}
	line := rec.lines[0]
	for _, want := range []string{"level=WARN", "worker writes to gnet's fds", gnetModule + " " + verifiedGnet, "broken on purpose"} {
		if !strings.Contains(line, want) {
			t.Errorf("the log line %q lacks %q", line, want)
		}
	}
	got := CurrentReaches()
	if got.WorkerWrites {
		t.Error("Reaches.WorkerWrites still true")
	}
	if ok, _ := readPauseSupported(); got.ReadPause != ok {
		t.Errorf("Reaches.ReadPause = %v, readPauseSupported %v", got.ReadPause, ok)
	}
}

// recordLog keeps each record as one text line.
type recordLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *recordLog) Enabled(context.Context, slog.Level) bool { return true }
func (l *recordLog) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *recordLog) WithGroup(string) slog.Handler            { return l }
func (l *recordLog) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	h := slog.NewTextHandler(&b, nil)
	if err := h.Handle(context.Background(), r); err != nil {
		return err
	}
	l.mu.Lock()
	l.lines = append(l.lines, strings.TrimSpace(b.String()))
	l.mu.Unlock()
	return nil
}

// With worker writes off, nothing writes to the fd behind gnet's back: a
// batch is not direct, a TLS flight goes back to the loop, sendfile is
// refused, and a streamed response goes out through the loop, with its
// backpressure, whole and in order.
func TestWorkerWritesOff(t *testing.T) {
	withReachOff(t, &fdWriteReach)
	const chunk, chunks = 16 << 10, 32
	h := newHarness(t, Config{MaxStreamQueued: 32 << 10}, func(ex *Exchange) {
		ex.Status = 200
		if ex.Request.Path != "/stream" {
			ex.Body = append(ex.Body, "plain"...)
			return
		}
		for i := range chunks {
			if _, err := ex.Write([]byte(strings.Repeat(string(rune('a'+i%26)), chunk))); err != nil {
				return
			}
			if err := ex.Flush(); err != nil {
				return
			}
		}
	})
	p := h.dial()
	var got strings.Builder
	readAll := func(want string) func() bool {
		return func() bool {
			got.WriteString(p.read())
			return strings.Contains(got.String(), want)
		}
	}
	p.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	h.runUntil("the plain response", readAll("plain"))

	got.Reset()
	p.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
	// The peer does not read: what the socket cannot take waits in gnet
	// (never in a worker's hands), up to about the limit.
	h.runUntil("gnet to hold the stream's bytes", func() bool { return p.fc.OutboundBuffered() > 32<<10 })
	h.runUntil("the whole stream", readAll("0\r\n\r\n"))
	resp, err := http.ReadResponse(bufio.NewReader(strings.NewReader(got.String())), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(body) != chunk*chunks {
		t.Fatalf("body of %d bytes, want %d", len(body), chunk*chunks)
	}
	for i := range chunks {
		if c := body[i*chunk]; c != byte('a'+i%26) {
			t.Fatalf("chunk %d starts with %q", i, c)
		}
	}
	if peak := h.srv.PipeStats().PeakStreamQueued; peak <= 0 || peak > 64<<10 {
		t.Errorf("PeakStreamQueued = %d, want within the limit plus a write", peak)
	}

	fds := socketPair(t)
	c := &conn{fd: fds[0]}
	if rest := c.writeFlight([]byte("flight")); string(rest) != "flight" {
		t.Errorf("writeFlight wrote to the fd: %q left", rest)
	}
	w := &h1Worker{b: &batch{c: c}}
	if err := w.sendFile(nil, nil, 0, 1); err != ErrNoSendfile {
		t.Errorf("sendFile: %v, want ErrNoSendfile", err)
	}
}

// probeFDOnOpen, on a fake gnet.Conn over a socket pair: it passes when
// the fd is the socket and gnet holds nothing, and fails when the fd is
// another file, when gnet holds output, or when gnet keeps what it was
// given to write.
func probeFDOnOpenDetects(t *testing.T) {
	inode := func(fd int) uint64 {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			t.Fatal(err)
		}
		return uint64(st.Ino)
	}
	fds := socketPair(t)
	if err := probeFDOnOpen(&fakeConn{fd: fds[0]}, fds[0], inode(fds[0])); err != nil {
		t.Fatalf("on a socket pair: %v", err)
	}
	if err := readProbe(fds[1], probeDirect+probeGnetW); err != nil {
		t.Fatal(err)
	}
	other := socketPair(t)
	if err := probeFDOnOpen(&fakeConn{fd: fds[0]}, fds[0], inode(other[0])); err == nil {
		t.Error("passed with the fd of another socket")
	}
	if err := probeFDOnOpen(&fakeConn{fd: fds[0], out: []byte("x")}, fds[0], inode(fds[0])); err == nil {
		t.Error("passed with output held by gnet")
	}
	keeps := socketPair(t) // a fake whose "gnet" never writes what it is given
	if err := probeFDOnOpen(&fakeConn{fd: keeps[0], fdClosed: true}, keeps[0], inode(keeps[0])); err == nil {
		t.Error("passed with gnet keeping what a socket with room would take")
	}
	full := socketPair(t)
	_ = unix.SetsockoptInt(full[0], unix.SOL_SOCKET, unix.SO_SNDBUF, 4096)
	for {
		if _, err := unix.Write(full[0], make([]byte, 4096)); err != nil {
			break // EAGAIN: the socket is full
		}
	}
	if err := probeFDOnOpen(&fakeConn{fd: full[0]}, full[0], inode(full[0])); err == nil {
		t.Error("passed with a socket that took nothing")
	}
}
