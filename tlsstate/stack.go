package tlsstate

// A TLS 1.3 server handshake in crypto/tls (Go 1.26, X25519MLKEM768 and
// an ECDSA certificate) needs a goroutine stack of more than 16 KiB (ML-KEM's
// encapsulation keeps its polynomials in large frames). A handshake
// goroutine starts with the runtime's small initial stack, so without help
// it grows three times (2, 4, 8, 16 → 32 KiB), each growth copying every
// frame and adjusting its pointers, deep inside crypto/tls: 3.5 % of the
// server's CPU under a TLS churn load (perf, 9,000 connections), against
// 0.7 % for fasthttp, whose connection goroutines are reused with their
// stacks. growStack makes the stack large enough in one step, while only
// the worker's own two frames are on it.

// growFrame is growStack's frame: with it the runtime moves the stack
// straight to 32 KiB.
const growFrame = 16 << 10

// stackSeed is never written: an index the compiler cannot know keeps
// growStack's frame from being optimised away.
var stackSeed int

// growStack grows the calling goroutine's stack to hold a handshake.
//
//go:noinline
func growStack() byte {
	var pad [growFrame]byte
	i := stackSeed & (growFrame - 1)
	pad[i] = 1
	return pad[(i+growFrame/2)&(growFrame-1)]
}
