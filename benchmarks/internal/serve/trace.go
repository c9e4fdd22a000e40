package serve

import (
	"os"
	"runtime/trace"
	"syscall"
	"time"
)

// TraceFileEnv names the environment variable that arms an execution trace
// in every peer server: when it holds a path, SIGUSR1 writes one second of
// runtime/trace there (for cmd/schedstates; examples/hello serves the same
// at /debug/pprof/trace). Unset, nothing is installed.
const TraceFileEnv = "BENCH_TRACE_FILE"

func init() {
	writeOnSignal(TraceFileEnv, syscall.SIGUSR1, "trace", func(path string) error { return traceFor(path, time.Second) })
}

// traceFor writes an execution trace of d to path.
func traceFor(path string, d time.Duration) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		return err
	}
	time.Sleep(d)
	trace.Stop()
	return f.Close()
}
