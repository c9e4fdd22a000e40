package serve

import (
	"os"
	"runtime/pprof"
	"syscall"
)

// AllocsFileEnv names the environment variable that arms an allocation
// profile in every peer server: when it holds a path, each SIGUSR2 writes
// the "allocs" profile there (cumulative since the start, so two of them
// taken around a load and read with `go tool pprof -base` give what the
// load allocated; examples/hello serves the same at /debug/pprof/allocs).
// Unset, nothing is installed.
const AllocsFileEnv = "BENCH_ALLOCS_FILE"

func init() {
	writeOnSignal(AllocsFileEnv, syscall.SIGUSR2, "allocs profile", writeAllocs)
}

// writeAllocs writes the allocs profile to path.
func writeAllocs(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
