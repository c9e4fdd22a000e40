//go:build unix

package engine

import (
	"bytes"
	"runtime"
	"strconv"
)

// curGoroutineID parses the running goroutine's id from its stack header
// ("goroutine 123 [running]:").
func curGoroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}
