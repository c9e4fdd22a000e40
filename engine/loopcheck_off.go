//go:build unix && !gwistcheck

package engine

// loopGoroutine checks nothing without the gwistcheck tag (loopcheck_on.go).
type loopGoroutine struct{}

func (*loopGoroutine) check(string) {}
