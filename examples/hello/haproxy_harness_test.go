//go:build linux

package main

import (
	"encoding/csv"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// testHAProxy is a running HAProxy with frontend front and a CSV stats page.
type testHAProxy struct {
	front, stats string
}

// startTestHAProxy runs HAProxy with a frontend on a free port whose
// default backend is be, defined by backend.
func startTestHAProxy(t *testing.T, backend string) *testHAProxy {
	t.Helper()
	bin := needTool(t, "haproxy", "haproxy")
	hp := &testHAProxy{front: freeAddr(t), stats: freeAddr(t)}
	cfg := "defaults\n    mode http\n    timeout connect 2s\n    timeout client 10s\n    timeout server 10s\n    retries 0\n" +
		"frontend fe\n    bind " + hp.front + "\n    default_backend be\n" +
		"listen stats\n    bind " + hp.stats + "\n    stats enable\n    stats uri /stats\n" + backend
	path := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-f", path, "-db")
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("haproxy:\n%s", out.String())
		}
	})
	return hp
}

// state is a server's status in backend be (UP, DOWN, ...), "" when unknown.
func (hp *testHAProxy) state(server string) string {
	resp, err := http.Get("http://" + hp.stats + "/stats;csv")
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	rows, err := csv.NewReader(resp.Body).ReadAll()
	if err != nil {
		return ""
	}
	for _, r := range rows {
		if len(r) > 17 && r[0] == "be" && r[1] == server {
			return r[17]
		}
	}
	return ""
}

// waitState waits up to 5 s for server to reach state.
func (hp *testHAProxy) waitState(t *testing.T, server, state string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for hp.state(server) != state {
		if time.Now().After(deadline) {
			t.Fatalf("HAProxy server %s is %q, not %s", server, hp.state(server), state)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
