package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/gwist/gwist/benchmarks/servers/cref"
)

// serverCores is the number of cores every server gets: GOMAXPROCS of the
// Go servers, nginx's worker_processes and h2o's num-threads (-server-cores;
// default all of the machine's).
var serverCores = runtime.NumCPU()

// ensureCRef finds nginx and h2o, installing the missing ones with apt-get
// when running as root (and install is true). It returns, per row, why it
// is not available.
func ensureCRef(ctx context.Context, install bool, rows []serverDef) map[string]string {
	out := map[string]string{}
	var pkgs []string
	for _, s := range cref.All {
		if !containsRow(rows, s.Name) {
			continue
		}
		if _, err := exec.LookPath(s.Name); err != nil {
			pkgs = append(pkgs, s.Package)
		}
	}
	if len(pkgs) > 0 && install && os.Geteuid() == 0 {
		logf("installing %s", strings.Join(pkgs, " "))
		if aptInstall(ctx, pkgs) != nil {
			_ = apt(ctx, "update")
			_ = aptInstall(ctx, pkgs)
		}
	}
	for _, s := range cref.All {
		if !containsRow(rows, s.Name) {
			continue
		}
		if _, err := exec.LookPath(s.Name); err != nil {
			out[s.Name] = s.Name + " not found; install it with: apt-get install -y " + s.Package
			logf("%s: skipping its row", out[s.Name])
		}
	}
	return out
}

func containsRow(rows []serverDef, name string) bool {
	for _, r := range rows {
		if r.name == name {
			return true
		}
	}
	return false
}

// crefCommand renders the row's configuration for this workload and round
// into the scratch directory and returns its command line.
func crefCommand(e *env, w workload, def serverDef, round int) ([]string, error) {
	s, ok := cref.ByName(def.name)
	if !ok {
		return nil, fmt.Errorf("no C reference server %q", def.name)
	}
	c := cref.Config{
		Dir:       filepath.Join(e.scratch, fmt.Sprintf("%s-%s-r%d", def.name, w.name, round+1)),
		PlainAddr: def.plainAddr(),
		// nginx's h2c is prior knowledge only, on a port that then
		// speaks nothing else: the h2c workload gets such a port.
		H2C:      w.name == "h2c" && def.name == "nginx",
		Workers:  serverCores,
		MaxConns: crefMaxConns(),
	}
	if w.static {
		c.StaticDir = e.staticDir
	}
	if w.tls {
		c.TLSAddr, c.CertFile, c.KeyFile = def.tlsAddr(), e.certFile, e.keyFile
	}
	return s.Prepare(c)
}

// crefMaxConns is the connection cap of the C servers: well above what any
// workload opens, below the descriptor limit (per nginx worker).
func crefMaxConns() int {
	n := int(currentNoFile()) - 500
	return max(1024, min(n, 200000))
}
