package main

import (
	"bufio"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/testkit"
)

// /events: each event reaches the client when it is sent, about 100 ms
// apart, not all at the end.
func TestEventsArriveWhenSent(t *testing.T) {
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get(startHello(t) + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	var at []time.Time
	for len(at) < 3 {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d events: %v", len(at), err)
		}
		if strings.HasPrefix(line, "data: ") {
			at = append(at, time.Now())
		}
	}
	for i := 1; i < len(at); i++ {
		// 100 ms apart; a timer may fire late on a loaded machine, never early.
		if gap := at[i].Sub(at[i-1]); gap < 70*time.Millisecond || gap > 2*time.Second {
			t.Fatalf("event %d came %v after the one before, want about 100 ms", i+1, gap)
		}
	}
	if rest, err := io.ReadAll(br); err != nil || string(rest) != "\n" {
		t.Fatalf("after the third event: %q, %v; want its blank line and the end of the stream", rest, err)
	}
}

// A client reading a large /download slowly (about 16 MiB/s) gets it while
// the server's heap stays flat, and a client that hangs up midway ends the
// handler: nothing is left behind (goroutines back to where they were).
func TestDownloadSlowReaderAndCutOff(t *testing.T) {
	base := startHello(t)
	fetch(t, base+"/") // the worker pool's first goroutine, which stays parked for reuse
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	heap0 := ms.HeapInuse
	goroutines := runtime.NumGoroutine()

	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 20 * time.Second}
	resp, err := c.Get(base + "/download?bytes=8589934592")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 256<<10)
	var peak uint64
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := io.ReadFull(resp.Body, buf); err != nil {
			t.Fatal(err)
		}
		time.Sleep(16 * time.Millisecond) // 256 KiB per 16 ms: about 16 MiB/s
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	if grew := int64(peak) - int64(heap0); grew > 32<<20 {
		t.Fatalf("heap grew by %d MiB while a client read /download slowly", grew>>20)
	}
	resp.Body.Close() // cut off midway: the handler's Write fails and it returns
	tr.CloseIdleConnections()
	if !testkit.Eventually(10*time.Second, func() bool { return runtime.NumGoroutine() <= goroutines }) {
		t.Fatalf("%d goroutines, %d before the download", runtime.NumGoroutine(), goroutines)
	}
}
