//go:build race

package engine

import (
	"runtime"
	"unsafe"
)

// raceReadRange tells the race detector that p was read, as a system call
// made through x/sys/unix would.
func raceReadRange(p []byte) {
	if len(p) > 0 {
		runtime.RaceReadRange(unsafe.Pointer(unsafe.SliceData(p)), len(p))
	}
}
