package main

import (
	"bufio"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startServerBinary builds ../../servers/NAME, starts it on a free port
// and waits for its "listening on" line; it is killed at the end of the test.
func startServerBinary(t *testing.T, name string) (addr string, pid int) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	if out, err := exec.Command("go", "build", "-o", bin, "../../servers/"+name).CombinedOutput(); err != nil {
		t.Fatalf("build %s: %v\n%s", name, err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr = l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "-addr", addr)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "listening on http://") {
				ready <- true
				break
			}
		}
		for sc.Scan() {
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not say it was listening", name)
	}
	return addr, cmd.Process.Pid
}

// TestServersAnswerTheWorkloads runs every mode of wsbench, small, against
// each WebSocket server of the module: /ws echoes, /ws/sub gets every
// POST /broadcast (wsbare has /ws only).
func TestServersAnswerTheWorkloads(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the servers")
	}
	for _, name := range []string{"wsgorilla", "wsnbio", "wsgwist", "wsbare"} {
		t.Run(name, func(t *testing.T) {
			addr, pid := startServerBinary(t, name)
			c := testConfig("idle", addr, 100)
			c.pid, c.check = pid, 0
			res, err := run(c)
			if err != nil || res.Open != 100 || res.Checked != 100 || res.CheckFailed != 0 || res.RSSAfter == 0 {
				t.Fatalf("idle: err %v, %+v", err, res)
			}
			c = testConfig("echo", addr, 10)
			c.pid = pid
			res, err = run(c)
			if err != nil || res.RoundTrips < 50 || res.ErrorCount() != 0 {
				t.Fatalf("echo: err %v, %+v", err, res)
			}
			if name == "wsbare" {
				return
			}
			c = testConfig("broadcast", addr, 100)
			c.size, c.rounds = 1024, 1
			res, err = run(c)
			if err != nil || len(res.Rounds) != 1 || res.Rounds[0].Delivered != 100 || res.Rounds[0].Sent != 100 {
				t.Fatalf("broadcast: err %v, %+v", err, res)
			}
		})
	}
}
