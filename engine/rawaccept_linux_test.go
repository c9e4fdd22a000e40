//go:build linux && !poll_opt

package engine

import (
	"bufio"
	"context"
	"io"
	"maps"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/testkit"
	"github.com/panjf2000/gnet/v2"
	"golang.org/x/sys/unix"
)

// startRawServer starts a server whose handler answers with the client's
// address, and checks that it accepts raw.
func startRawServer(t *testing.T, addr string) (*Server, string) {
	t.Helper()
	s, a := startOnGroup(t, NewLoopGroup(), addr, Config{Inline: true}, func(ex *Exchange) {
		ex.Body = append(ex.Body, ex.RemoteAddr().String()...)
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})
	if s.raw == nil {
		t.Fatalf("the server accepts through net.TCPListener (raw accept reach: %q)", rawAcceptReach.reason())
	}
	return s, a
}

// Connections accepted raw are served, with the client's address as the
// remote address and the address it dialled as the local one: also on a
// wildcard listener, where the local address is looked up per connection.
func TestRawAcceptServesWithAddresses(t *testing.T) {
	for _, listen := range []string{"127.0.0.1:0", "0.0.0.0:0", "[::1]:0", "[::]:0"} {
		t.Run(listen, func(t *testing.T) {
			host := "127.0.0.1"
			if strings.HasPrefix(listen, "[::1]") {
				host = "::1"
			}
			if strings.HasPrefix(listen, "[") {
				if l, err := net.Listen("tcp", listen); err != nil {
					t.Skipf("no IPv6 here: %v", err)
				} else {
					l.Close()
				}
			}
			s, a := startRawServer(t, listen)
			dial := net.JoinHostPort(host, portOf(t, a))
			for range 3 { // round robin: each loop gets one
				cl, err := net.Dial("tcp", dial)
				if err != nil {
					t.Fatal(err)
				}
				_ = cl.SetDeadline(time.Now().Add(5 * time.Second))
				if _, err := io.WriteString(cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
					t.Fatal(err)
				}
				body := readBody(t, bufio.NewReader(cl))
				if body != cl.LocalAddr().String() {
					t.Errorf("remote address %q, want the client's %q", body, cl.LocalAddr())
				}
				locals := connLocalAddrs(s)
				found := false
				for _, l := range locals {
					found = found || l == dial
				}
				if !found {
					t.Errorf("gnet's local addresses %q lack %q", locals, dial)
				}
				cl.Close()
			}
		})
	}
}

// A connection gnet cannot register (here: a regular file, which epoll
// refuses) gives its place under the connection limit back, is counted,
// and gnet closes its descriptor.
func TestRawAcceptRegisterFailureGivesBack(t *testing.T) {
	s, _ := startRawServer(t, "127.0.0.1:0")
	f, err := os.CreateTemp(t.TempDir(), "not-a-socket")
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		t.Fatal(err)
	}
	if !s.limit.reserve() {
		t.Fatal("no room under the limit")
	}
	a := accepted{fd: fd, remote: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 9), Port: 9}}
	if err := s.enroll(a, nil); err != nil {
		t.Fatalf("enroll returned %v; the failure comes later, on the loop", err)
	}
	for deadline := time.Now().Add(5 * time.Second); s.AcceptErrors() != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the failure was not counted")
		}
	}
	if n := s.limit.Open(); n != 0 {
		t.Errorf("%d places taken under the limit after the failure, want 0", n)
	}
	var st2 unix.Stat_t
	if err := unix.Fstat(fd, &st2); err == nil && st2.Ino == st.Ino && st2.Dev == st.Dev {
		t.Error("the descriptor is still open")
	}
}

// connLocalAddrs reads, on each loop, its connections' local addresses.
func connLocalAddrs(s *Server) []string {
	var out []string
	for el, ls := range serverLoops(s) {
		ch := make(chan []string, 1)
		_ = el.Execute(context.Background(), loopTask(func() {
			var got []string
			for _, c := range ls.conns {
				got = append(got, c.gc.LocalAddr().String())
			}
			ch <- got
		}))
		out = append(out, <-ch...)
	}
	return out
}

// serverLoops copies s's loops, for a test to wait on them without
// holding loopsMu (which a loop opening a connection takes).
func serverLoops(s *Server) map[gnet.EventLoop]*loopState {
	s.loopsMu.Lock()
	defer s.loopsMu.Unlock()
	return maps.Clone(s.loops)
}

func portOf(t *testing.T, a string) string {
	_, p, err := net.SplitHostPort(a)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// readBody reads one HTTP/1.1 response with a Content-Length and returns
// its body.
func readBody(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	n := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the response head: %v", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
			if n, err = strconv.Atoi(strings.TrimSpace(v)); err != nil {
				t.Fatalf("Content-Length %q", v)
			}
		}
	}
	if n < 0 {
		t.Fatal("no Content-Length")
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The raw accept's self-test notices loops that are not the client's.
func TestRawAcceptSelfTestDetects(t *testing.T) {
	for name, hook := range map[string]func([]rawLoop) []rawLoop{
		"no loop": func([]rawLoop) []rawLoop { return nil },
		"another's loop": func(l []rawLoop) []rawLoop {
			return append(l[:0:0], rawLoop{gel: nil, el: l[0].el, poller: l[0].poller})
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := probeGnet(discardLogger(), probeHooks{rawLoops: hook})
			if r.rawAccept == "" {
				t.Fatal("the self-test passed")
			}
			if r.fdWrites != "" || r.readPause != "" {
				t.Errorf("other reaches failed too: %+v", r)
			}
			t.Log(r.rawAccept)
		})
	}
}

// A connection accepted just before Shutdown, whose registration is still
// queued on its loop, is opened and served before the loops stop (its
// response says Connection: close), not closed unserved by the loops'
// stop.
func TestRawAcceptShutdownServesQueuedRegistration(t *testing.T) {
	entered, release := make(chan struct{}, 1), make(chan struct{})
	hook := func() {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release
	}
	s, a := startRawServer(t, "127.0.0.1:0")
	rawRegisterHook.Store(&hook)
	defer rawRegisterHook.Store(nil)
	cl := testkit.Dial(t, a)
	_ = cl.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(cl, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-entered: // the registration runs on the loop, held by the hook
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatal("the connection's registration never ran")
	}
	shut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		shut <- s.Shutdown(ctx)
	}()
	time.Sleep(50 * time.Millisecond) // Shutdown is under way: the listener is closed
	close(release)
	resp, err := http.ReadResponse(bufio.NewReader(cl), nil)
	if err != nil {
		t.Fatalf("the connection accepted before Shutdown was not served: %v", err)
	}
	resp.Body.Close()
	if !resp.Close {
		t.Error("the response during the drain does not say Connection: close")
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}
