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
	if p := Lookup(name); p != "" {
		return p
	}
	gobin, err := binDir()
	if err != nil {
		t.Logf("go env GOPATH: %v", err)
		return ""
	}
	p := filepath.Join(gobin, name)
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

// Lookup returns the path of the command name from PATH or Go's bin
// directory (GOBIN, or GOPATH/bin), or "" if it is in neither; it installs
// nothing.
func Lookup(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	gobin, err := binDir()
	if err != nil {
		return ""
	}
	p := filepath.Join(gobin, name)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// binDir is where `go install` puts commands: GOBIN, or GOPATH/bin.
func binDir() (string, error) {
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		return gobin, nil
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return "", err
	}
	return filepath.Join(strings.TrimSpace(string(out)), "bin"), nil
}
