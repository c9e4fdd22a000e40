//go:build unix && !gwistcheck

package engine

// loopGoroutine checks nothing without the gwistcheck tag (loopcheck_on.go).
type loopGoroutine struct{}

func (*loopGoroutine) check(string) {}

// gwistcheck is false: the batch pool's checks are compiled out.
const gwistcheck = false
