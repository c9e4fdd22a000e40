//go:build unix && gwistcheck

package engine

import (
	"strings"
	"testing"
)

// In test builds a loop-only method called off its loop panics, naming
// itself (the first caller fixes the loop's goroutine).
func TestLoopOnlyIsChecked(t *testing.T) {
	h := newHarness(t, Config{Inline: true}, hello)
	p := h.dial()
	p.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n") // the test goroutine is the loop now
	c := p.fc.ctx.(*conn)
	done := make(chan any)
	go func() {
		defer func() { done <- recover() }()
		c.finishCallback()
	}()
	r := <-done
	if msg, _ := r.(string); !strings.Contains(msg, "finishCallback ran on goroutine") {
		t.Fatalf("a loop-only call from another goroutine: %v", r)
	}
}
