//go:build linux

package main

import (
	"net"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/haproxytest"
	"github.com/gwist/gwist/internal/testkit"
)

// The tests in this file put a real HAProxy (Debian package haproxy) in
// front of the example, as in production: its health checks poll /readyz
// (every 100 ms, two failures in a row mark a server down), it sends a PROXY v2
// header on every connection, checks included (the example runs with
// -proxy-protocol 127.0.0.1), and it does not retry a failed request on
// another server (retries 0), so any request the drain or the restart loses
// reaches the load generator.

const haproxyReadyzTemplate = haproxytest.HTTPDefaults + `
frontend fe
    bind {{.Frontend}}
    default_backend be
backend be
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 100ms fall 2 rise 1
{{range $i, $a := .Data}}    server s{{$i}} {{$a}} send-proxy-v2 check check-send-proxy
{{end}}`

// waitUp waits for HAProxy to see every server of backend be UP.
func waitUp(t *testing.T, hp *haproxytest.HAProxy, n int) {
	t.Helper()
	for i := range n {
		hp.WaitServerState(t, "be", "s"+strconv.Itoa(i), "UP", 5*time.Second)
	}
}

// HAProxy through a drain: SIGTERM to one of two servers (with
// -drain-delay 1.5s) turns its /readyz 503, HAProxy marks it DOWN while its
// listener is still open, and wrk through HAProxy sees no error and no
// non-2xx response; the drained process exits 0.
func TestHAProxyHealthCheckFollowsReadyzDuringDrain(t *testing.T) {
	wrk := needTool(t, "wrk", "wrk")
	a, b, ha, hb := testkit.FreeAddr(t), testkit.FreeAddr(t), testkit.FreeAddr(t), testkit.FreeAddr(t)
	pa := startHelloProcess(t, "http://"+ha+"/readyz", "-addr", a, "-drain-delay", "1500ms",
		"-proxy-protocol", "127.0.0.1", "-health-addr", ha)
	startHelloProcess(t, "http://"+hb+"/readyz", "-addr", b, "-proxy-protocol", "127.0.0.1", "-health-addr", hb)
	hp := haproxytest.Start(t, haproxyReadyzTemplate, []string{a, b})
	waitUp(t, hp, 2)

	wrkDone := make(chan wrkResult, 1)
	go func() { wrkDone <- runWrk(t, wrk, "-t2", "-c32", "-d3s", "http://"+hp.Frontend+"/") }()
	time.Sleep(time.Second)
	if err := pa.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	begun := time.Now()
	hp.WaitServerState(t, "be", "s0", "DOWN", 5*time.Second)
	down := time.Since(begun)
	if c, err := net.Dial("tcp", a); err != nil {
		t.Fatalf("s1's listener closed (%v) before HAProxy marked it down (%v after SIGTERM)", err, down)
	} else {
		c.Close()
	}
	t.Logf("HAProxy marked the draining server DOWN %v after SIGTERM", down)
	res := <-wrkDone
	t.Logf("wrk through HAProxy:\n%s", res.out)
	if res.socketErrors != "" || res.non2xx != "" {
		t.Fatalf("requests failed during the drain: %q %q", res.socketErrors, res.non2xx)
	}
	if err := pa.exited(t, 15*time.Second); err != nil {
		t.Fatalf("drained process: %v", err)
	}
}

// A restart behind HAProxy under load (the recipe of
// TestRestartUnderLoadLosesNothing, with HAProxy's pooled server-side
// connections in between) loses no request.
func TestHAProxyRestartUnderLoadLosesNothing(t *testing.T) {
	wrk := needTool(t, "wrk", "wrk")
	needTool(t, "curl", "curl")
	addr, health1, health2 := testkit.FreeAddr(t), testkit.FreeAddr(t), testkit.FreeAddr(t)
	old := startHelloProcess(t, "http://"+health1+"/readyz",
		"-addr", addr, "-reuseport", "-health-addr", health1, "-proxy-protocol", "127.0.0.1")
	hp := haproxytest.Start(t, haproxyReadyzTemplate, []string{addr})
	waitUp(t, hp, 1)

	restarted := make(chan error, 1)
	var newPID int
	go func() {
		time.Sleep(time.Second)
		pid, err := runRestartScript(t, old, "http://"+health2+"/readyz",
			"-addr", addr, "-reuseport", "-health-addr", health2, "-proxy-protocol", "127.0.0.1")
		newPID = pid
		restarted <- err
	}()
	res := runWrk(t, wrk, "-t2", "-c32", "-d4s", "http://"+hp.Frontend+"/")
	if err := <-restarted; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(newPID, syscall.SIGKILL) })
	t.Logf("wrk through HAProxy and the restart:\n%s", res.out)
	if res.socketErrors != "" || res.non2xx != "" {
		t.Fatalf("requests lost in the restart: %q %q", res.socketErrors, res.non2xx)
	}
	if err := old.exited(t, 15*time.Second); err != nil {
		t.Fatalf("old process: %v", err)
	}
	if newPID == 0 {
		t.Fatal("no new process")
	}
}
