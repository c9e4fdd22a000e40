package serve

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"
)

// HeapProfileOnSignal writes a heap profile of the live objects to path
// (after a GC) each time the process gets SIGUSR1, sampling one allocation
// per rate bytes (0: Go's default). Set it up first thing in main: the
// rate applies to allocations made after it.
func HeapProfileOnSignal(path string, rate int) {
	if rate > 0 {
		runtime.MemProfileRate = rate
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		for range ch {
			runtime.GC()
			f, err := os.Create(path)
			if err == nil {
				err = pprof.Lookup("heap").WriteTo(f, 0)
				f.Close()
			}
			if err != nil {
				fmt.Fprintf(os.Stderr, "heap profile: %v\n", err)
				continue
			}
			fmt.Fprintf(os.Stderr, "heap profile written to %s\n", path)
		}
	}()
}

// StartCPUProfile starts a CPU profile written to path; the returned func
// stops it and closes the file.
func StartCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}
