package gwist

import (
	"context"
	"runtime"
	"testing"
)

type endTestKey struct{}

// Once a net/http handler's context is done, its values are gone: code
// that wakes on Done (grpc-go's goroutines do) must never read the
// request's values, which by then may be the Ctx's next request's. A
// watcher polls Done while end runs, so it sees the context done as early
// as the scheduler allows; each time it must find Value nil.
func TestNetContextValuesGoneWhenDone(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs two Ps for the watcher to poll while end runs")
	}
	parent := context.WithValue(context.Background(), endTestKey{}, "request")
	for i := range 3000 {
		n := &netContext{parent: parent, done: make(chan struct{}), stop: func() bool { return false }}
		seen := make(chan any)
		ready := make(chan struct{})
		go func() {
			close(ready)
			for {
				select {
				case <-n.Done():
					seen <- n.Value(endTestKey{})
					return
				default:
				}
			}
		}()
		<-ready
		n.end()
		if v := <-seen; v != nil {
			t.Fatalf("round %d: Value after Done = %v, want nil", i, v)
		}
	}
}
