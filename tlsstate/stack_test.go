package tlsstate

import (
	"testing"
	"unsafe"
)

// useStack needs about 20 KiB of stack, as a handshake does.
//
//go:noinline
func useStack(depth int) byte {
	var pad [1 << 10]byte
	pad[depth&1023] = byte(depth)
	if depth > 0 {
		return useStack(depth-1) + pad[(depth+1)&1023]
	}
	return pad[0]
}

// stackMoves reports whether the stack of a new goroutine moved (was grown)
// while it ran a handshake-sized call, with growStack first or not.
func stackMoves(grow bool) bool {
	moved := make(chan bool)
	go func() {
		if grow {
			_ = growStack()
		}
		var here byte
		before := uintptr(unsafe.Pointer(&here))
		_ = useStack(20)
		moved <- uintptr(unsafe.Pointer(&here)) != before
	}()
	return <-moved
}

func TestGrowStackAvoidsGrowthDuringHandshake(t *testing.T) {
	if !stackMoves(false) {
		t.Fatal("a new goroutine's stack did not grow for 20 KiB of frames: the test measures nothing")
	}
	if stackMoves(true) {
		t.Fatal("the stack still grew after growStack: its frame was optimised away or is too small")
	}
}
