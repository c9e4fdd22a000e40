// Package h2spectest runs h2spec, the HTTP/2 conformance suite, from tests:
// it finds (or installs) the binary and checks that every case passed.
package h2spectest

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/gotool"
)

// Find returns the h2spec binary, installing it with `go install` when it
// is missing; "" when neither works.
func Find(t testing.TB) string {
	return gotool.Find(t, "h2spec", "github.com/summerwind/h2spec/cmd/h2spec@latest")
}

// Run runs h2spec in strict mode (-S: every case, the non-strict ones
// included) against addr with the extra arguments (e.g. "-t", "-k" for
// TLS) and fails the test unless every case passed. It skips the test when
// h2spec cannot be found or installed.
func Run(t testing.TB, addr string, extra ...string) {
	t.Helper()
	bin := Find(t)
	if bin == "" {
		t.Skip("h2spec is not installed and `go install github.com/summerwind/h2spec/cmd/h2spec@latest` failed")
	}
	host, port, _ := strings.Cut(addr, ":")
	args := append([]string{"-h", host, "-p", port, "-o", "2", "-S"}, extra...)
	start := time.Now()
	out, err := exec.Command(bin, args...).CombinedOutput()
	t.Logf("h2spec %s took %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	sum := regexp.MustCompile(`(\d+) tests, (\d+) passed, (\d+) skipped, (\d+) failed`).FindSubmatch(out)
	if sum == nil {
		t.Fatalf("h2spec: %v\n%s", err, out)
	}
	t.Logf("h2spec: %s", sum[0])
	if string(sum[4]) != "0" || err != nil {
		i := bytes.Index(out, []byte("Failures:"))
		if i < 0 {
			i = 0
		}
		t.Fatalf("h2spec failures:\n%s", out[i:])
	}
}
