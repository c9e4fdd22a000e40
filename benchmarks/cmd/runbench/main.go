// Command runbench runs gwist's side-by-side benchmark suite: it builds gwist
// (examples/hello) and the peer servers into bin/, runs every workload
// against every server in alternating rounds, and writes RESULTS.md with
// medians and ratios, plus an SVG chart of the ratios.
//
//	go run ./cmd/runbench                       # full run (about half an hour)
//	go run ./cmd/runbench -quick                # smoke run (a few minutes)
//	go run ./cmd/runbench -only plaintext,churn -servers gwist,nethttp -rounds 3
package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gwist/gwist/benchmarks/internal/certs"
)

func logf(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "runbench: "+format+"\n", a...)
}

type flags struct {
	quick, noBuild, noInstall, list bool
	rounds, portBase                int
	only, servers, out, svg, dir    string
	base                            string
}

func main() {
	var f flags
	flag.BoolVar(&f.quick, "quick", false, "short durations and small counts, one round (a smoke run)")
	flag.IntVar(&f.rounds, "rounds", 0, "rounds of A B C … per workload (default 2, or 1 with -quick)")
	flag.StringVar(&f.only, "only", "", "comma-separated workloads to run (a prefix such as churn selects churn-*)")
	flag.StringVar(&f.servers, "servers", "", "comma-separated rows or binaries to run (default all)")
	flag.StringVar(&f.out, "out", "RESULTS.md", "report file")
	flag.StringVar(&f.svg, "svg", "", "chart file (default results.svg beside -out)")
	flag.StringVar(&f.dir, "dir", ".", "the benchmarks module directory")
	flag.BoolVar(&f.noBuild, "no-build", false, "use the binaries already in bin/")
	flag.BoolVar(&f.noInstall, "no-install", false, "do not apt-get install missing load generators")
	flag.BoolVar(&f.list, "list", false, "list the workloads and exit")
	flag.StringVar(&f.base, "base", "", "also run examples/hello as built at this git revision (row gwist-base), to compare a change with the code before it in the same run")
	flag.IntVar(&f.portBase, "port-base", portBase, "row n listens on port-base+n (HTTPS: port-base+100+n)")
	flag.IntVar(&serverCores, "server-cores", serverCores, "cores of every server: GOMAXPROCS of the Go servers, worker_processes of nginx, num-threads of h2o")
	flag.Parse()
	if f.list {
		for _, w := range allWorkloads() {
			fmt.Printf("%-18s %s\n", w.name, w.title)
		}
		return
	}
	if err := run(f); err != nil {
		logf("%v", err)
		os.Exit(1)
	}
}

func run(f flags) error {
	started := time.Now()
	dir, err := moduleDir(f.dir)
	if err != nil {
		return err
	}
	o := fullOptions()
	if f.quick {
		o = quickOptions()
	}
	if f.rounds > 0 {
		o.rounds = f.rounds
	}
	if f.portBase != portBase {
		if f.portBase < 1024 || f.portBase > 65000 {
			return fmt.Errorf("-port-base %d out of range", f.portBase)
		}
		portBase = f.portBase
		allServers = assignPorts(allServers)
	}
	works, err := selectWorkloads(f.only)
	if err != nil {
		return err
	}
	servers := selectServers(f.servers)
	if f.base == "" {
		servers = slices.DeleteFunc(servers, func(s serverDef) bool { return s.name == baseRow })
	}
	if len(servers) == 0 {
		return fmt.Errorf("-servers %q matches no server", f.servers)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	m := describeMachine()
	cpuStart := takeCPUSnapshot()
	soft, _, err := raiseNoFile()
	if err != nil {
		logf("cannot raise RLIMIT_NOFILE: %v", err)
	}
	m.noFile = soft
	missingTools := ensureTools(ctx, !f.noInstall)
	for _, t := range externalTools {
		if _, missing := missingTools[t[0]]; !missing {
			m.tools = append(m.tools, toolVersion(t[0], versionFlag(t[0])))
		}
	}
	unavailable := map[string]string{}
	if !f.noBuild {
		unavailable = buildAll(ctx, dir)
		if f.base != "" {
			if why := buildBase(ctx, dir, f.base, filepath.Join(dir, "bin", baseRow)); why != "" {
				unavailable[baseRow] = why
			}
		}
	}
	for _, b := range append([]string{"gwist", baseRow}, binNames()...) {
		if _, err := os.Stat(filepath.Join(dir, "bin", b)); err != nil && unavailable[b] == "" {
			unavailable[b] = "not built (bin/" + b + " missing)"
		}
	}
	for name, why := range ensureCRef(ctx, !f.noInstall, servers) {
		unavailable[name] = why
	}
	for _, s := range servers {
		if s.cref && unavailable[s.name] == "" {
			m.tools = append(m.tools, toolVersion(s.name, "-v"))
		}
	}
	m.serverCores = serverCores
	m.gwist = "available (examples/hello)"
	if why := unavailable["gwist"]; why != "" {
		m.gwist = "**not available**: " + why
	}
	if f.base != "" && unavailable[baseRow] == "" {
		m.gwist += "; row " + baseRow + ": examples/hello at " + f.base
	}

	scratch, err := os.MkdirTemp("", "gwist-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(scratch)
	certFile, keyFile, err := certs.WriteFiles(scratch)
	if err != nil {
		return err
	}
	www := filepath.Join(scratch, "www")
	if err := writeStaticFile(www); err != nil {
		return err
	}
	lua, err := writeLua(scratch)
	if err != nil {
		return err
	}
	logDir := filepath.Join(dir, ".work", "logs")
	_ = os.RemoveAll(logDir)
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	flagsOf := map[string]map[string]bool{}
	for _, s := range servers {
		if _, done := flagsOf[s.binary]; !done && unavailable[s.binary] == "" && !s.cref {
			flagsOf[s.binary] = probeFlags(ctx, filepath.Join(dir, "bin", s.binary))
		}
	}
	e := &env{ctx: ctx, o: o, binDir: filepath.Join(dir, "bin"), certFile: certFile, keyFile: keyFile, luaFile: lua, scratch: scratch, staticDir: www}
	rep := &report{o: o, servers: servers}
	for _, w := range works {
		if ctx.Err() != nil {
			break
		}
		rep.tables = append(rep.tables, runWorkload(e, w, servers, missingTools, unavailable, flagsOf, logDir))
	}
	rep.interrupted = ctx.Err() != nil
	m.elapsed = time.Since(started)
	m.othersCPU = othersShare(cpuStart, takeCPUSnapshot(), m.cores)
	rep.m = m
	return writeReport(rep, f)
}

func versionFlag(tool string) string {
	switch tool {
	case "wrk":
		return "-v"
	case "ab":
		return "-V"
	default:
		return "--version"
	}
}

func binNames() []string {
	var out []string
	for _, b := range ownBinaries {
		out = append(out, b[0])
	}
	return out
}

// moduleDir finds the benchmarks module: dir itself or dir/benchmarks.
func moduleDir(dir string) (string, error) {
	for _, d := range []string{dir, filepath.Join(dir, "benchmarks")} {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && strings.Contains(string(b), "module github.com/gwist/gwist/benchmarks\n") {
			return filepath.Abs(d)
		}
	}
	return "", fmt.Errorf("%s is not the benchmarks module (run from benchmarks/ or pass -dir)", dir)
}

// selectWorkloads keeps the workloads named in list (exact names, or a
// prefix before a dash: "churn" selects every churn-*).
func selectWorkloads(list string) ([]workload, error) {
	all := allWorkloads()
	if strings.TrimSpace(list) == "" {
		return all, nil
	}
	var out []workload
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		found := false
		for _, w := range all {
			if w.name != n && !strings.HasPrefix(w.name, n+"-") {
				continue
			}
			found = true
			if !slices.ContainsFunc(out, func(x workload) bool { return x.name == w.name }) {
				out = append(out, w)
			}
		}
		if !found {
			var names []string
			for _, w := range all {
				names = append(names, w.name)
			}
			return nil, fmt.Errorf("-only: unknown workload %q (have %s)", n, strings.Join(names, ", "))
		}
	}
	return out, nil
}

func writeReport(rep *report, f flags) error {
	svgPath := f.svg
	if svgPath == "" {
		svgPath = filepath.Join(filepath.Dir(f.out), "results.svg")
	}
	rel, err := filepath.Rel(filepath.Dir(f.out), svgPath)
	if err != nil {
		rel = svgPath
	}
	rep.svgName = filepath.ToSlash(rel)
	sf, err := os.Create(svgPath)
	if err != nil {
		return err
	}
	if err := rep.chart().Render(sf); err != nil {
		sf.Close()
		return err
	}
	if err := sf.Close(); err != nil {
		return err
	}
	mf, err := os.Create(f.out)
	if err != nil {
		return err
	}
	rep.writeMarkdown(mf)
	if err := mf.Close(); err != nil {
		return err
	}
	logf("wrote %s and %s (%s)", f.out, svgPath, rep.m.elapsed.Round(time.Second))
	return nil
}

// writeStaticFile writes the static workload's file into dir.
func writeStaticFile(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b := make([]byte, staticSize)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, staticFile), b, 0o644)
}
