// Package gotool finds the command-line tools that tests drive (h2spec,
// pebble), installing them with `go install` when they are missing, so
// that `make test` needs nothing but Go on a fresh machine.
package gotool

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Find returns the path of the command name: from PATH, else from Go's bin
// directory (GOBIN, or GOPATH/bin), else after `go install module` (a
// module path with its version, e.g. "example.com/cmd/tool@v1.2.3"). It
// returns "" when that fails too, and says why in the test's log.
func Find(t testing.TB, name, module string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	gobin := os.Getenv("GOBIN")
	if gobin == "" {
		out, err := exec.Command("go", "env", "GOPATH").Output()
		if err != nil {
			t.Logf("go env GOPATH: %v", err)
			return ""
		}
		gobin = filepath.Join(strings.TrimSpace(string(out)), "bin")
	}
	p := filepath.Join(gobin, name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	start := time.Now()
	if out, err := exec.Command("go", "install", module).CombinedOutput(); err != nil {
		t.Logf("go install %s: %v\n%s", module, err, out)
		return ""
	}
	t.Logf("installed %s in %v", module, time.Since(start).Round(time.Millisecond))
	if _, err := os.Stat(p); err != nil {
		t.Logf("go install %s left no %s: %v", module, p, err)
		return ""
	}
	return p
}
