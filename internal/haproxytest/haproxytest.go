// Package haproxytest runs a real HAProxy (the Debian package haproxy) from
// tests: it finds the binary, writes a configuration from a template into
// the test's temporary directory, runs HAProxy in the foreground, waits until
// its frontend accepts, asks its runtime API for a server's state, and stops
// it when the test ends, showing its output if the test failed.
//
//	hp := haproxytest.Start(t, haproxytest.HTTPDefaults+`
//	frontend fe
//	    bind {{.Frontend}}
//	    default_backend be
//	backend be
//	    server s1 {{.Data}} send-proxy-v2 check
//	`, backendAddr)
//	hp.WaitServerState(t, "be", "s1", "UP", 5*time.Second)
//	resp, err := http.Get("http://" + hp.Frontend + "/")
package haproxytest

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"text/template"
	"time"

	"github.com/gwist/gwist/internal/syncbuf"
	"github.com/gwist/gwist/internal/testkit"
)

// HTTPDefaults is a defaults section for HTTP tests: mode http, short
// timeouts, and no retry on another server (retries 0), so a request a
// server fails reaches the client instead of being hidden. A health check
// may take 2 s (timeout check): on a loaded test machine a check that
// times out after the default (the check interval) would mark a healthy
// server down.
const HTTPDefaults = `defaults
    mode http
    log global
    timeout connect 2s
    timeout client 10s
    timeout server 10s
    timeout check 2s
    retries 0
`

// global is written before the caller's configuration: the runtime API on
// Vars.Stats, and notices (server state changes, alerts) on stderr.
const global = `global
    stats socket ipv4@{{.Stats}} level admin
    stats timeout 10s
    log stderr format short local0 notice
`

// Vars is what a configuration template sees.
type Vars struct {
	// Frontend is a free loopback address ("127.0.0.1:PORT") for the
	// frontend to bind; Start waits until it accepts connections.
	Frontend string
	// Stats is the address of the runtime API (stats socket), which the
	// harness binds in its global section.
	Stats string
	// Data is the caller's (backend addresses, options…).
	Data any
}

// HAProxy is a running haproxy process.
type HAProxy struct {
	// Frontend and Stats are the addresses from Vars.
	Frontend, Stats string
	// Config is the configuration file written.
	Config string

	cmd  *exec.Cmd
	out  *syncBuffer
	done chan struct{}
	err  error // Wait's result, once done is closed
}

// Binary returns the path of the haproxy executable, "" when it is not
// installed (it is looked up in PATH, then in /usr/sbin and /usr/local/sbin,
// which a non-root PATH may lack).
func Binary() string {
	if p, err := exec.LookPath("haproxy"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/haproxy", "/usr/local/sbin/haproxy"} {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// Require returns the haproxy executable, skipping the test with a clear
// message when it is not installed.
func Require(t testing.TB) string {
	t.Helper()
	bin := Binary()
	if bin == "" {
		t.Skip("haproxy is not installed (Debian package haproxy: apt-get install haproxy; .ci/run installs it)")
	}
	return bin
}

// FreeAddr is testkit.FreeAddr: a loopback address whose port was free a
// moment ago.
func FreeAddr(t testing.TB) string {
	t.Helper()
	return testkit.FreeAddr(t)
}

// Start runs HAProxy with the configuration tmpl, a text/template executed
// with Vars (data as .Data) and written after the harness's global section
// into t.TempDir(). It runs in the foreground (-db) and Start returns once
// Vars.Frontend accepts connections; the test fails if HAProxy refuses the
// configuration or exits. (Start's probe is a connection opened and closed
// at once: in mode tcp HAProxy relays it to a server.) HAProxy is stopped when the test ends (Stop), and
// its output is logged if the test failed. It skips the test when haproxy
// is not installed.
func Start(t testing.TB, tmpl string, data any) *HAProxy {
	t.Helper()
	bin := Require(t)
	vars := Vars{Frontend: FreeAddr(t), Stats: FreeAddr(t), Data: data}
	tp, err := template.New("haproxy.cfg").Option("missingkey=error").Parse(global + tmpl)
	if err != nil {
		t.Fatalf("haproxytest: configuration template: %v", err)
	}
	var cfg bytes.Buffer
	if err := tp.Execute(&cfg, vars); err != nil {
		t.Fatalf("haproxytest: configuration template: %v", err)
	}
	path := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, cfg.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	h := &HAProxy{Frontend: vars.Frontend, Stats: vars.Stats, Config: path,
		cmd: exec.Command(bin, "-f", path, "-db"), out: &syncBuffer{}, done: make(chan struct{})}
	h.cmd.Stdout, h.cmd.Stderr = h.out, h.out
	if err := h.cmd.Start(); err != nil {
		t.Fatalf("haproxytest: %v", err)
	}
	go func() { h.err = h.cmd.Wait(); close(h.done) }()
	t.Cleanup(func() {
		h.Stop()
		if t.Failed() {
			t.Logf("haproxy (%s):\n%s\n%s", path, cfg.String(), h.Output())
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", h.Frontend, time.Second)
		if err == nil {
			c.Close()
			return h
		}
		select {
		case <-h.done:
			t.Fatalf("haproxytest: haproxy exited (%v) before its frontend %s accepted:\n%s", h.err, h.Frontend, h.Output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("haproxytest: frontend %s does not accept: %v\n%s", h.Frontend, err, h.Output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Output is what HAProxy wrote to stdout and stderr so far (alerts,
// warnings, and notices such as "Server be/s1 is DOWN").
func (h *HAProxy) Output() string { return h.out.String() }

// Stop stops HAProxy (SIGTERM, then SIGKILL after 5 s) and waits for it to
// exit. It may be called more than once.
func (h *HAProxy) Stop() {
	select {
	case <-h.done:
		return
	default:
	}
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-h.done:
	case <-time.After(5 * time.Second):
		_ = h.cmd.Process.Kill()
		<-h.done
	}
}

// Command sends one command to the runtime API ("show stat",
// "disable server be/s1", …) and returns its answer.
func (h *HAProxy) Command(cmd string) (string, error) {
	c, err := net.DialTimeout("tcp", h.Stats, 2*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.WriteString(c, cmd+"\n"); err != nil {
		return "", err
	}
	b, err := io.ReadAll(c) // the API closes after one command
	return string(b), err
}

// ServerState is the status of server in backend as the runtime API's
// "show stat" reports it: "UP", "DOWN", "MAINT", "no check" (a server
// without health checks), or a transition such as "UP 1/2" (going down)
// or "DOWN 1/2" (going up).
func (h *HAProxy) ServerState(backend, server string) (string, error) {
	out, err := h.Command("show stat")
	if err != nil {
		return "", err
	}
	rows, err := csv.NewReader(strings.NewReader(strings.TrimPrefix(out, "# "))).ReadAll()
	if err != nil {
		return "", fmt.Errorf("haproxytest: show stat: %v\n%s", err, out)
	}
	status := -1
	for i, name := range rows[0] {
		if name == "status" {
			status = i
		}
	}
	if status < 0 {
		return "", fmt.Errorf("haproxytest: show stat has no status column:\n%s", out)
	}
	for _, r := range rows[1:] {
		if len(r) > status && r[0] == backend && r[1] == server {
			return r[status], nil
		}
	}
	return "", fmt.Errorf("haproxytest: no server %s/%s in show stat", backend, server)
}

// WaitServerState waits up to timeout for server of backend to have state
// (as ServerState reports it), polling every 10 ms, and fails the test
// otherwise.
func (h *HAProxy) WaitServerState(t testing.TB, backend, server, state string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got, err := h.ServerState(backend, server)
		if got == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("haproxytest: server %s/%s is %q (%v), not %q after %v", backend, server, got, err, state, timeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// WaitOutput waits up to timeout for HAProxy's output to contain want,
// polling every 10 ms, and fails the test otherwise. A notice reaches
// stderr through HAProxy's log ring, so it may follow the state change the
// runtime API already reports.
func (h *HAProxy) WaitOutput(t testing.TB, want string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !strings.Contains(h.Output(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("haproxytest: no %q in HAProxy's output after %v:\n%s", want, timeout, h.Output())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// syncBuffer is a log or output sink read while it is written.
type syncBuffer = syncbuf.Buffer
