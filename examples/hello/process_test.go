//go:build linux

package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/testkit"
)

// The tests in this file run the example as its own process (built once),
// send it signals and drive it with real clients, as an operator would.

var (
	helloBinOnce sync.Once
	helloBin     string
	helloBinErr  error
)

// buildHello builds examples/hello once per test binary.
func buildHello(t *testing.T) string {
	t.Helper()
	helloBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "gwist-hello-bin")
		if err != nil {
			helloBinErr = err
			return
		}
		helloBin = filepath.Join(dir, "hello")
		out, err := exec.Command("go", "build", "-o", helloBin, ".").CombinedOutput()
		if err != nil {
			helloBinErr = err
			helloBin = string(out)
		}
	})
	if helloBinErr != nil {
		t.Fatalf("go build: %v\n%s", helloBinErr, helloBin)
	}
	return helloBin
}

// needTool skips the test when name is not installed.
func needTool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed (Debian package %s; .ci/run installs it)", name, pkg)
	}
	return p
}

// helloProcess is a running examples/hello.
type helloProcess struct {
	cmd  *exec.Cmd
	out  *syncBuffer
	done chan error // Wait's result; the process is reaped at once
}

// startHelloProcess runs the example with args and waits until readyURL
// answers 200. The process is killed when the test ends, if still running.
func startHelloProcess(t *testing.T, readyURL string, args ...string) *helloProcess {
	t.Helper()
	p := &helloProcess{cmd: exec.Command(buildHello(t), args...), out: &syncBuffer{}, done: make(chan error, 1)}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		p.done <- nil // for a later exited()
	})
	var err error
	if !testkit.Eventually(20*time.Second, func() bool {
		var resp *http.Response
		if resp, err = http.Get(readyURL); err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == 200
	}) {
		t.Fatalf("%s not ready: %v\n%s", readyURL, err, p.out.String())
	}
	return p
}

// exited waits up to timeout for the process to exit and returns its
// error (nil for status 0).
func (p *helloProcess) exited(t *testing.T, timeout time.Duration) error {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		return err
	case <-time.After(timeout):
		t.Fatalf("process still running after %v\n%s", timeout, p.out.String())
		return nil
	}
}

// wrkResult is what wrk printed, with the counts the tests check.
type wrkResult struct {
	out                  string
	socketErrors, non2xx string // the lines, empty when absent
}

// runWrk runs wrk with args and returns its report.
func runWrk(t *testing.T, wrk string, args ...string) wrkResult {
	t.Helper()
	out, err := exec.Command(wrk, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("wrk: %v\n%s", err, out)
	}
	r := wrkResult{out: string(out)}
	for _, l := range strings.Split(r.out, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "Socket errors"):
			r.socketErrors = l
		case strings.HasPrefix(l, "Non-2xx"):
			r.non2xx = l
		}
	}
	return r
}

// A restart with the recipe (examples/restart/restart.sh: start the new
// release with -reuseport, wait for its /readyz, SIGTERM the old one)
// under wrk -t2 -c32 loses no request: no socket error of any kind and no
// non-2xx response, the old process exits 0, and the new one serves after.
func TestRestartUnderLoadLosesNothing(t *testing.T) {
	wrk := needTool(t, "wrk", "wrk")
	needTool(t, "curl", "curl")
	addr, health1, health2 := testkit.FreeAddr(t), testkit.FreeAddr(t), testkit.FreeAddr(t)
	old := startHelloProcess(t, "http://"+health1+"/readyz",
		"-addr", addr, "-reuseport", "-health-addr", health1)

	restarted := make(chan error, 1)
	var newPID int
	go func() {
		time.Sleep(time.Second) // wrk is at full speed
		pid, err := runRestartScript(t, old, "http://"+health2+"/readyz",
			"-addr", addr, "-reuseport", "-health-addr", health2)
		newPID = pid
		restarted <- err
	}()
	res := runWrk(t, wrk, "-t2", "-c32", "-d4s", "http://"+addr+"/")
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(newPID, syscall.SIGKILL) })
	t.Logf("wrk through the restart:\n%s", res.out)
	if res.socketErrors != "" || res.non2xx != "" {
		t.Fatalf("requests lost in the restart: %q %q", res.socketErrors, res.non2xx)
	}
	if err := old.exited(t, 15*time.Second); err != nil {
		t.Fatalf("old process: %v\n%s", err, old.out.String())
	}
	resp, err := http.Get("http://" + addr + "/")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after the restart: %v %v", resp, err)
	}
	resp.Body.Close()
}

// SIGTERM during wrk -t2 -c32 with a GET /slow?ms=1000 in flight: the slow
// request completes with 200, the process exits 0, and wrk sees no read
// error, timeout or non-2xx response: every connection the server closed,
// it closed after a full response with Connection: close. wrk reconnects
// after each of those; once the listener is closed the kernel refuses the
// reconnects, which wrk counts as connect or write errors (its connect is
// non-blocking: the refusal surfaces at the first write). With -drain-delay
// past the end of wrk's run, the listener is still open when wrk stops, and
// wrk reports no socket error at all.
func TestSIGTERMUnderLoadFinishesInFlight(t *testing.T) {
	wrk := needTool(t, "wrk", "wrk")
	for _, tc := range []struct {
		name       string
		drainDelay string
	}{{"no-delay", "0s"}, {"drain-delay", "3s"}} {
		t.Run(tc.name, func(t *testing.T) {
			addr := testkit.FreeAddr(t)
			p := startHelloProcess(t, "http://"+addr+"/readyz", "-addr", addr, "-drain-delay", tc.drainDelay)
			wrkDone := make(chan wrkResult, 1)
			go func() { wrkDone <- runWrk(t, wrk, "-t2", "-c32", "-d3s", "http://"+addr+"/") }()
			time.Sleep(time.Second)
			slow := make(chan string, 1)
			go func() {
				resp, err := http.Get("http://" + addr + "/slow?ms=1000")
				if err != nil {
					slow <- err.Error()
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				slow <- resp.Status + " " + string(b)
			}()
			time.Sleep(200 * time.Millisecond) // /slow is in flight
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			if got := <-slow; !strings.HasPrefix(got, "200 OK") {
				t.Fatalf("/slow in flight during SIGTERM: %q", got)
			}
			res := <-wrkDone
			t.Logf("wrk:\n%s", res.out)
			if err := p.exited(t, 15*time.Second); err != nil {
				t.Fatalf("exit: %v\n%s", err, p.out.String())
			}
			var connect, read, write, timeout int
			if res.socketErrors != "" {
				if _, err := fmt.Sscanf(res.socketErrors, "Socket errors: connect %d, read %d, write %d, timeout %d",
					&connect, &read, &write, &timeout); err != nil {
					t.Fatalf("parsing %q: %v", res.socketErrors, err)
				}
			}
			if read != 0 || timeout != 0 || res.non2xx != "" {
				t.Fatalf("wrk saw a connection cut or a failed response: %q %q", res.socketErrors, res.non2xx)
			}
			if tc.drainDelay != "0s" && res.socketErrors != "" {
				t.Fatalf("with the listener open until wrk ended: %q", res.socketErrors)
			}
		})
	}
}

// runRestartScript restarts old with examples/restart/restart.sh: a new
// examples/hello with args, ready when readyURL answers 200. It returns
// the new process's PID.
func runRestartScript(t *testing.T, old *helloProcess, readyURL string, args ...string) (int, error) {
	cmd := exec.Command("bash", append([]string{"../restart/restart.sh", strconv.Itoa(old.cmd.Process.Pid), readyURL,
		buildHello(t)}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("restart.sh: %v\n%s", err, stderr.String())
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}
