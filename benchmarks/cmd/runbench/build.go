package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// binaries built from this module: bin name → package.
var ownBinaries = [][2]string{
	{"nethttp", "./servers/nethttp"},
	{"fasthttp", "./servers/fasthttp"},
	{"nbio", "./servers/nbio"},
	{"gnetbare", "./servers/gnetbare"},
	{"tlsbench", "./tlsbench"},
	{"idleconns", "./cmd/idleconns"},
	{"ratebench", "./cmd/ratebench"},
	{"wsgorilla", "./servers/wsgorilla"},
	{"wsnbio", "./servers/wsnbio"},
	{"wsgwist", "./servers/wsgwist"},
	{"wsbare", "./servers/wsbare"},
	{"grpcsvc", "./servers/grpcsvc"},
	{"wsbench", "./cmd/wsbench"},
}

// buildAll builds every binary into dir/bin and returns, per bin name, why
// it is not available (missing from the map: built).
func buildAll(ctx context.Context, dir string) map[string]string {
	bin := filepath.Join(dir, "bin")
	failed := map[string]string{}
	if err := os.MkdirAll(bin, 0o755); err != nil {
		for _, b := range ownBinaries {
			failed[b[0]] = err.Error()
		}
		failed["gwist"] = err.Error()
		return failed
	}
	for _, b := range ownBinaries {
		logf("build %s", b[0])
		if out, err := goBuild(ctx, dir, filepath.Join(bin, b[0]), b[1]); err != nil {
			failed[b[0]] = fmt.Sprintf("build failed: %s", firstLine(out))
			logf("  %s", failed[b[0]])
		}
	}
	logf("build gwist (examples/hello)")
	if why := buildGwist(ctx, dir, filepath.Join(bin, "gwist")); why != "" {
		failed["gwist"] = why
		logf("  gwist not available: %s", why)
	}
	return failed
}

// buildGwist builds the framework's example server. It tries the
// benchmarks module first (the replace directive points at ../), then the
// framework's own module, whose go.sum may be newer than ours.
func buildGwist(ctx context.Context, dir, out string) string {
	root := filepath.Dir(dir)
	hello := filepath.Join(root, "examples", "hello")
	matches, _ := filepath.Glob(filepath.Join(hello, "*.go"))
	if len(matches) == 0 {
		return "examples/hello has no Go files yet"
	}
	_ = os.Remove(out)
	o1, err := goBuild(ctx, dir, out, "github.com/gwist/gwist/examples/hello")
	if err == nil {
		return ""
	}
	o2, err := goBuild(ctx, root, out, "./examples/hello")
	if err == nil {
		logf("  (built in the framework module; the benchmarks module said: %s)", firstLine(o1))
		return ""
	}
	return "build failed: " + firstLine(o2)
}

// buildBase builds examples/hello as it was at the git revision rev into
// out, from a temporary worktree of the checkout; it returns why not, or "".
func buildBase(ctx context.Context, dir, rev, out string) string {
	root := filepath.Dir(dir)
	tree, err := os.MkdirTemp("", "gwist-base-")
	if err != nil {
		return err.Error()
	}
	defer os.RemoveAll(tree)
	logf("build %s (examples/hello at %s)", filepath.Base(out), rev)
	if o, err := exec.CommandContext(ctx, "git", "-C", root, "worktree", "add", "--detach", tree, rev).CombinedOutput(); err != nil {
		return "git worktree add " + rev + ": " + firstLine(string(o))
	}
	defer exec.Command("git", "-C", root, "worktree", "remove", "--force", tree).Run()
	if o, err := goBuild(ctx, tree, out, "./examples/hello"); err != nil {
		return "build failed: " + firstLine(o)
	}
	return ""
}

func goBuild(ctx context.Context, dir, out, pkg string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	return strings.TrimSpace(string(b)), err
}

// goVersion returns `go version` of the toolchain that built the servers.
func goVersion() string {
	b, err := exec.Command("go", "version").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
