package hostile

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// ReadCPU agrees with getrusage(2) on this process's CPU time across a
// spin of 200 ms of CPU (not of wall time: on a loaded machine the spin
// may get a fraction of a core), within /proc's 10 ms ticks.
func TestReadCPU(t *testing.T) {
	before, err := ReadCPU(os.Getpid())
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	r0 := rusageCPU(t)
	for rusageCPU(t)-r0 < 200*time.Millisecond {
	}
	after, err := ReadCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	r := rusageCPU(t) - r0
	if d := after - before; d < r-50*time.Millisecond || d > r+50*time.Millisecond {
		t.Errorf("getrusage saw %v of CPU, /proc %v", r, d)
	}
	if _, err := ReadCPU(-1); err == nil {
		t.Error("ReadCPU(-1) did not fail")
	}
}

// rusageCPU is this process's user and system time by getrusage(2).
func rusageCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// quietAt finds the first window under the bound, not a quiet moment
// inside a busy window, and reports false when there is none.
func TestQuietAt(t *testing.T) {
	ms := time.Millisecond
	s := &CPUSampler{samples: []cpuSample{
		{0, 0}, {100 * ms, 100 * ms}, {200 * ms, 300 * ms}, // 1 then 2 cores
		{300 * ms, 400 * ms}, {400 * ms, 400 * ms}, // 1 core, then idle (the 300 ms before: 1 core)
		{500 * ms, 410 * ms}, {600 * ms, 420 * ms}, {700 * ms, 430 * ms},
	}}
	// Over 300 ms windows: at 500 ms the 300 ms before used 110 ms (0.37
	// cores); at 400 ms it used 300 ms (1 core).
	if at, ok := s.quietAt(0, 300*ms, 0.5); !ok || at != 500*ms {
		t.Errorf("quietAt(300ms, 0.5) = %v, %v; want 500ms, true", at, ok)
	}
	if at, ok := s.quietAt(0, 300*ms, 0.05); ok {
		t.Errorf("quietAt(300ms, 0.05) = %v, true; no window was that quiet", at)
	}
	if at, ok := s.quietAt(0, 100*ms, 0.5); !ok || at != 400*ms {
		t.Errorf("quietAt(0, 100ms, 0.5) = %v, %v; want 400ms, true", at, ok)
	}
	if at, ok := s.quietAt(650*ms, 100*ms, 0.5); !ok || at != 700*ms {
		t.Errorf("quietAt(650ms, 100ms, 0.5) = %v, %v; want 700ms, true", at, ok)
	}
}

// The live sampler keeps reading until Stop, and finds this test's idle
// time after a spin quiet (how busy the spin looks depends on the
// machine's load, so only the quiet end is checked).
func TestSampleCPU(t *testing.T) {
	s, err := SampleCPU(os.Getpid(), 20*time.Millisecond)
	if err != nil {
		t.Skipf("no /proc here: %v", err)
	}
	for end := time.Now().Add(100 * time.Millisecond); time.Now().Before(end); {
	}
	time.Sleep(400 * time.Millisecond)
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	n := len(s.samples)
	if _, ok := s.quietAt(0, 200*time.Millisecond, 0.5); !ok || n < 5 {
		t.Errorf("%d samples, a quiet window found: %v", n, ok)
	}
	time.Sleep(50 * time.Millisecond)
	if len(s.samples) != n {
		t.Error("the sampler kept reading after Stop")
	}
}

// Phase sums up the requests that started in a span of the probe.
func TestProbePhase(t *testing.T) {
	ms := time.Millisecond
	r := ProbeResult{Requests: []TimedRequest{{0, 300 * ms}, {300 * ms, 200 * ms}, {500 * ms, 2 * ms}, {510 * ms, 1 * ms}, {520 * ms, 3 * ms}}}
	if got := r.Phase(0, 500*ms); got.Count != 2 || got.Max != 300*ms || got.P50 != 200*ms {
		t.Errorf("burst phase %+v", got)
	}
	if got := r.Phase(500*ms, ToEnd); got.Count != 3 || got.Max != 3*ms || got.P50 != 2*ms || got.P99 != 3*ms {
		t.Errorf("steady phase %+v", got)
	}
	if got := r.Phase(time.Second, ToEnd); got.Count != 0 || got.Max != 0 {
		t.Errorf("empty phase %+v", got)
	}
	if got := r.Phase(0, 0); got.Count != 0 {
		t.Errorf("phase [0, 0) %+v", got)
	}
}
