//go:build linux && !poll_opt

package engine

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/testkit"
	"golang.org/x/sys/unix"
)

// epollEvents reads the event mask registered for fd in the epoll set epfd
// from /proc/self/fdinfo ("tfd: FD events: MASK ...").
func epollEvents(t *testing.T, epfd, fd int) (uint32, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/fdinfo/%d", epfd))
	if err != nil {
		t.Errorf("reading fdinfo: %v", err)
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		var tfd int
		var ev uint32
		if n, _ := fmt.Sscanf(line, "tfd: %d events: %x", &tfd, &ev); n == 2 && tfd == fd {
			return ev, true
		}
	}
	return 0, false
}

type loopTask func()

func (f loopTask) Run(context.Context) error { f(); return nil }

// A connection with MaxPipelined requests in flight has EPOLLIN taken out
// of its registration in its loop's epoll set, so the kernel, not the
// server, holds what the client sends next; it is put back once the
// responses drain, and every request is answered.
func TestReadPauseInEffect(t *testing.T) {
	w, err := NewWorkers(8)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release(time.Second)
	release := make(chan struct{})
	s, err := NewServer(Config{Workers: w, MaxPipelined: 4}, func(ex *Exchange) {
		<-release
		ex.Body = append(ex.Body, "ok"...)
	})
	if err != nil {
		t.Fatal(err)
	}
	addr, err := s.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	}()
	cl, err := net.Dial("tcp", addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	_ = cl.SetDeadline(time.Now().Add(10 * time.Second))
	const n = 100
	if _, err := cl.Write([]byte(strings.Repeat("GET / HTTP/1.1\r\nHost: x\r\n\r\n", n))); err != nil {
		t.Fatal(err)
	}

	// Poll, on the loop (where conn state lives), until the connection
	// is paused, then read its registration.
	type seen struct {
		has, paused, readOff bool
		ev                   uint32
		found                bool
	}
	look := func() seen {
		// Not under loopsMu while waiting for the loops: a loop opening a
		// connection takes it (onOpen → loopFor).
		loops := serverLoops(s)
		ch := make(chan seen, len(loops))
		for el, ls := range loops {
			_ = el.Execute(context.Background(), loopTask(func() {
				var r seen
				for _, c := range ls.conns {
					r.has, r.paused, r.readOff = true, c.paused, c.readOff
					if ls.epfdKnown {
						r.ev, r.found = epollEvents(t, ls.epfd, c.fd)
					}
				}
				ch <- r
			}))
		}
		var r seen
		for range loops {
			if x := <-ch; x.has {
				r = x
			}
		}
		return r
	}
	var r seen
	if !testkit.Eventually(5*time.Second, func() bool { r = look(); return r.readOff }) {
		t.Fatalf("connection never paused reading: %+v", r)
	}
	if !r.found || r.ev&unix.EPOLLIN != 0 {
		t.Fatalf("paused, but the epoll registration is %#x (found %v): EPOLLIN still in it", r.ev, r.found)
	}

	close(release)
	br := bufio.NewReader(cl)
	for i := range n {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		resp.Body.Close()
	}
	// The last response can reach the client before the loop has taken
	// the batch back and resumed reading: wait for the loop.
	if !testkit.Eventually(5*time.Second, func() bool { r = look(); return r.has && !r.readOff }) {
		t.Fatalf("still paused after every response: %+v", r)
	}
}
