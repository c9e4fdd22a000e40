// Package sockopt sets and reads the TCP socket options gwist tunes on raw
// file descriptors: TCP_QUICKACK, TCP_NODELAY, TCP_DEFER_ACCEPT and TCP
// keepalive.
//
// The setters are real on Linux and no-ops returning nil elsewhere, so the
// engine may call them unconditionally. The getters exist for tests and for
// statistics; on other systems they return zero values and a nil error.
//
// Every function takes a raw fd that the caller owns. None of them retains
// the fd. Callers must not pass an fd that may already be closed: fd numbers
// are reused, so a stale number could reach an unrelated socket.
//
// TCP_QUICKACK is not sticky on Linux: the kernel leaves quick-ACK mode as
// soon as the traffic looks interactive, so callers re-arm it at the points
// they care about (see the gwist design notes).
package sockopt
