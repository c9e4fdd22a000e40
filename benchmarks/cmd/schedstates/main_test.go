package main

import (
	"bytes"
	"os"
	"runtime"
	"runtime/trace"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A trace of this process with one P, two goroutines spinning and a third
// blocked in a read(2) on a pipe, read as if it had two Ps: one goroutine
// runs while another is runnable for most of the time, and the blocked
// read is among the syscalls in progress meanwhile.
func TestAnalyzeSeesStarvationAndHeldSyscalls(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	raw, err := pr.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}

	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = raw.Read(func(fd uintptr) bool {
			b := make([]byte, 1)
			readBlocking(int(fd), b)
			return true
		})
	}()
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				spin()
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	close(stop)
	_, _ = pw.Write([]byte{1})
	wg.Wait()
	trace.Stop()

	a, err := analyze(&buf, 2)
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for _, v := range a.bySituation {
		total += v
	}
	if total < 150 {
		t.Fatalf("traced %.1f ms, want about 200", total)
	}
	if a.starved < total/2 {
		t.Errorf("starved %.1f of %.1f ms; with one P and two spinning goroutines, want most of it", a.starved, total)
	}
	held := false
	for where, ms := range a.heldBy {
		if strings.Contains(where, "syscall") && ms > total/4 {
			held = true
		}
	}
	if !held {
		t.Errorf("no syscall held during the starvation: %v", a.heldBy)
	}
	var out strings.Builder
	a.print(&out)
	if !strings.Contains(out.String(), "fewer than 2 goroutines running while others were runnable") {
		t.Errorf("report:\n%s", out.String())
	}
}

//go:noinline
func spin() {
	x := 0
	for i := range 10000 {
		x += i
	}
	_ = x
}

// readBlocking reads fd in blocking mode (the runtime keeps the pipe
// non-blocking), so that the goroutine stays in the read(2) syscall.
func readBlocking(fd int, b []byte) {
	_ = syscall.SetNonblock(fd, false)
	_, _ = syscall.Read(fd, b)
}
