package engine

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawWriteMax is the longest write sysWrite makes without entering the
// runtime's syscall state: copying 64 KiB into a socket takes tens of
// microseconds at most, which is as long as this P goes unseen by the
// scheduler.
const rawWriteMax = 64 << 10

// sysWrite writes p to the non-blocking fd. A short write is made with
// RawSyscall, as gnet makes its non-blocking epoll_wait: it cannot block,
// and telling the scheduler about it costs more than its own time. A P
// the scheduler sees in one system call at two of sysmon's ticks in a row
// (20 µs apart while it is busy) is taken from it and handed off, and each
// hand-off keeps sysmon ticking every 20 µs for another millisecond: with
// unix.Write, a WebSocket echo over 1,000 connections woke sysmon 3,400 to
// 4,200 times a second (6 % of a core); with this, 600 to 1,100, about as
// often as gorilla/websocket's. Longer writes go through unix.Write, so
// that other goroutines may run meanwhile.
func sysWrite(fd int, p []byte) (int, error) {
	if len(p) > rawWriteMax {
		return unix.Write(fd, p)
	}
	n, _, errno := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
	if errno != 0 {
		return 0, errno
	}
	raceReadRange(p[:n]) // what unix.Write tells the race detector
	return int(n), nil
}
