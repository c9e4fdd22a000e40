package testkit

import (
	"testing"
	"time"
)

// WaitFor returns once cond holds, and fails the test, naming what it
// waited for, when it does not hold within timeout. cond is checked on the
// calling goroutine, at once and then at intervals growing from 1 ms to
// 10 ms: a wait on something the test can observe (a count in Stats, a
// member of a hub), in place of a sleep that guesses how long it takes.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Eventually(timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// Eventually reports whether cond held within timeout, checking it as
// WaitFor does; the caller says what failed (it may run off the test's
// goroutine, in a handler or an example).
func Eventually(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	pause := time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
	return true
}
