package http2

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// findH2spec returns the h2spec binary, installing it with `go install`
// when it is missing; "" when neither works.
func findH2spec(t *testing.T) string {
	if p, err := exec.LookPath("h2spec"); err == nil {
		return p
	}
	gobin := os.Getenv("GOBIN")
	if gobin == "" {
		out, err := exec.Command("go", "env", "GOPATH").Output()
		if err != nil {
			return ""
		}
		gobin = filepath.Join(strings.TrimSpace(string(out)), "bin")
	}
	p := filepath.Join(gobin, "h2spec")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	cmd := exec.Command("go", "install", "github.com/summerwind/h2spec/cmd/h2spec@latest")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Logf("go install h2spec: %v\n%s", err, out)
		return ""
	}
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

// TestH2spec runs h2spec in strict mode (plaintext: h2c by prior
// knowledge) against the Conn served over TCP; every case must pass. It
// takes well under a second.
func TestH2spec(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	bin := findH2spec(t)
	if bin == "" {
		t.Skip("h2spec is not installed and `go install github.com/summerwind/h2spec/cmd/h2spec@latest` failed")
	}
	srv := startTCPServer(t, Config{})
	host, port, _ := strings.Cut(srv.addr(), ":")
	// Strict mode (-S) runs every case, the non-strict ones included.
	args := []string{"-h", host, "-p", port, "-o", "2", "-S"}
	start := time.Now()
	out, err := exec.Command(bin, args...).CombinedOutput()
	t.Logf("h2spec %s took %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	sum := regexp.MustCompile(`(\d+) tests, (\d+) passed, (\d+) skipped, (\d+) failed`).FindSubmatch(out)
	if sum == nil {
		t.Fatalf("h2spec: %v\n%s", err, out)
	}
	t.Logf("h2spec: %s", sum[0])
	if string(sum[4]) != "0" || err != nil {
		// Print the failures only.
		i := bytes.Index(out, []byte("Failures:"))
		if i < 0 {
			i = 0
		}
		t.Fatalf("h2spec failures:\n%s", out[i:])
	}
}
