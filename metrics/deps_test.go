package metrics_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The core packages do not import client_golang: only programs that
// import metrics link it.
func TestCoreDoesNotLinkPrometheus(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/gwist/gwist", "github.com/gwist/gwist/middleware").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v: %s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		if strings.Contains(p, "prometheus") {
			t.Errorf("the core depends on %s", p)
		}
	}
}
