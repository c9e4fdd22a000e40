package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// server is a running server process, in its own process group.
type server struct {
	def  serverDef
	cmd  *exec.Cmd
	pid  int
	log  *tailBuffer
	done chan struct{} // closed when the process has exited
	err  error         // exit status, valid after done
}

// startServer checks that the ports are free, starts the binary, and waits
// for its "listening on" line(s) (and for the ports to accept).
func startServer(ctx context.Context, binPath string, def serverDef, args []string, withTLS bool, logPath string) (*server, error) {
	addrs := []string{def.plainAddr()}
	want := []string{"listening on http://"}
	if withTLS {
		addrs = append(addrs, def.tlsAddr())
		want = append(want, "listening on https://")
	}
	if def.cref {
		want = nil // nginx and h2o print no such line: wait for the ports
	}
	for _, a := range addrs {
		if err := waitPortFree(ctx, a, 75*time.Second); err != nil {
			return nil, err
		}
	}
	cmd := exec.Command(binPath, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if !def.cref {
		// The same cores for every row: GOMAXPROCS here, nginx's
		// worker_processes and h2o's num-threads in their configs.
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(serverCores))
	}
	s := &server{def: def, cmd: cmd, log: newTailBuffer(64 << 10), done: make(chan struct{})}
	var sinks []io.Writer = []io.Writer{s.log}
	if f, err := os.Create(logPath); err == nil {
		defer func() { go func() { <-s.done; f.Close() }() }()
		sinks = append(sinks, f)
	}
	out := io.MultiWriter(sinks...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", def.name, err)
	}
	s.pid = cmd.Process.Pid
	seen := make(chan string, 8)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(out, line)
			for _, w := range want {
				if strings.HasPrefix(line, w) {
					select {
					case seen <- w:
					default:
					}
				}
			}
		}
		io.Copy(io.Discard, pr)
	}()
	go func() {
		s.err = cmd.Wait()
		pw.Close()
		close(s.done)
	}()
	timer := time.NewTimer(20 * time.Second)
	defer timer.Stop()
	got := map[string]bool{}
	for len(got) < len(want) {
		select {
		case w := <-seen:
			got[w] = true
		case <-s.done:
			time.Sleep(50 * time.Millisecond) // let the last output land in the log
			return nil, fmt.Errorf("%s exited before listening (%v): %s", def.name, s.err, s.log.firstAndLast())
		case <-timer.C:
			s.stop()
			return nil, fmt.Errorf("%s printed no %q within 20s: %s", def.name, want, s.log.firstAndLast())
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		}
	}
	for _, a := range addrs {
		if err := waitAccepting(a, 5*time.Second); err != nil && !s.alive() {
			time.Sleep(50 * time.Millisecond)
			return nil, fmt.Errorf("%s exited before listening (%v): %s", def.name, s.err, s.log.firstAndLast())
		} else if err != nil {
			s.stop()
			return nil, fmt.Errorf("%s said it listens but %s does not accept: %w", def.name, a, err)
		}
	}
	return s, nil
}

// alive reports whether the process is still running.
func (s *server) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM to the process group, then SIGKILL after 5s, and waits.
func (s *server) stop() {
	if !s.alive() {
		return
	}
	_ = syscall.Kill(-s.pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-s.pid, syscall.SIGKILL)
		<-s.done
	}
	// Children that ignored SIGTERM and outlived the leader.
	_ = syscall.Kill(-s.pid, syscall.SIGKILL)
}

// waitAccepting waits until a TCP connect to addr succeeds.
func waitAccepting(addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

// firstAndLast returns the first line kept and, when there are more, the
// last one: a failing program usually says why first (a flag error) or last
// (a panic or fatal error).
func (t *tailBuffer) firstAndLast() string {
	t.mu.Lock()
	var ls []string
	for _, l := range bytes.Split(t.buf, []byte("\n")) {
		if s := strings.TrimSpace(string(l)); s != "" {
			ls = append(ls, s)
		}
	}
	t.mu.Unlock()
	switch len(ls) {
	case 0:
		return "(no output)"
	case 1:
		return ls[0]
	}
	return ls[0] + " … " + ls[len(ls)-1]
}

// lastLines returns the last n non-empty lines joined with " | ".
func (t *tailBuffer) lastLines(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ls []string
	for _, l := range bytes.Split(t.buf, []byte("\n")) {
		if s := strings.TrimSpace(string(l)); s != "" {
			ls = append(ls, s)
		}
	}
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	if len(ls) == 0 {
		return "(no output)"
	}
	return strings.Join(ls, " | ")
}
