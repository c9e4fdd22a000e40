package interop

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/gotool"
)

// TestConnectConformance runs the Connect conformance suite
// (connectrpc.com/conformance v1.0.7's connectconformance runner, in server
// mode, with conformance/config.yaml: Connect, gRPC and gRPC-Web over
// HTTP/1.1 and HTTP/2, TLS and plaintext) against connect-go mounted on
// gwist (cmd/conformance-server, built with the race detector and the
// engine's loop checks). With GWIST_CONFORMANCE_NETHTTP=1 it runs the same
// configuration against the same handler on net/http too, and every case
// that passes there must pass on gwist. The runner is looked up in PATH and
// GOPATH/bin; without it the test is skipped, unless
// GWIST_CONFORMANCE=required (CI installs it: .ci/run).
func TestConnectConformance(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite takes minutes")
	}
	runner := gotool.Lookup("connectconformance")
	if runner == "" {
		if os.Getenv("GWIST_CONFORMANCE") == "required" {
			t.Fatal("connectconformance not found: go install connectrpc.com/conformance/cmd/connectconformance@v1.0.7")
		}
		t.Skip("connectconformance not installed (go install connectrpc.com/conformance/cmd/connectconformance@v1.0.7)")
	}
	server := filepath.Join(t.TempDir(), "conformance-server")
	build := exec.Command("go", "build", "-race", "-tags", "gwistcheck", "-o", server, "./cmd/conformance-server")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the server under test: %v\n%s", err, out)
	}
	gw := runConformance(t, runner, server)
	t.Logf("gwist: %d passed, %d failed", gw.passed, len(gw.failed))
	if os.Getenv("GWIST_CONFORMANCE_NETHTTP") != "" {
		ref := runConformance(t, runner, server, "-nethttp")
		t.Logf("net/http: %d passed, %d failed", ref.passed, len(ref.failed))
		for name, why := range gw.failed {
			if _, alsoRef := ref.failed[name]; !alsoRef {
				t.Errorf("passes on net/http, fails on gwist: %s\n\t%s", name, why)
			}
		}
		if gw.passed+len(gw.failed) != ref.passed+len(ref.failed) {
			t.Errorf("gwist ran %d cases, net/http %d", gw.passed+len(gw.failed), ref.passed+len(ref.failed))
		}
		return
	}
	for name, why := range gw.failed {
		t.Errorf("FAILED: %s\n\t%s", name, why)
	}
}

// conformanceResult is one run's outcome: how many cases passed, and the
// failed ones with the runner's reason.
type conformanceResult struct {
	passed int
	failed map[string]string
}

var summaryLine = regexp.MustCompile(`^(\d+) passed, (\d+) failed$`)

// runConformance runs the suite against server (with args) and parses the
// runner's report.
func runConformance(t *testing.T, runner, server string, args ...string) conformanceResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmdArgs := append([]string{"--mode", "server", "--conf", "conformance/config.yaml", "--", server}, args...)
	cmd := exec.CommandContext(ctx, runner, cmdArgs...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// A data race in the server under test ends it at once, failing cases.
	cmd.Env = append(os.Environ(), "GORACE=halt_on_error=1")
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("%s: %v", runner, err)
	}
	res := conformanceResult{failed: map[string]string{}}
	sawSummary := false
	var last string
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "FAILED: "):
			last = strings.TrimSuffix(strings.TrimPrefix(line, "FAILED: "), ":")
			res.failed[last] = ""
		case strings.HasPrefix(line, "\t") && last != "":
			res.failed[last] += strings.TrimSpace(line) + " "
		default:
			last = ""
			if m := summaryLine.FindStringSubmatch(line); m != nil {
				sawSummary = true
				var p int
				for _, c := range m[1] {
					p = p*10 + int(c-'0')
				}
				res.passed = p
			}
		}
	}
	if !sawSummary {
		t.Fatalf("%s %v: no summary in its output (%v):\n%s", runner, args, err, tail(out.String(), 4000))
	}
	return res
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
