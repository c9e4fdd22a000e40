package hostile

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestLiveProbeChildProcess is the live client when LiveProbeChild runs
// this test binary; otherwise it skips.
func TestLiveProbeChildProcess(t *testing.T) {
	ok, err := ServeLiveProbeChild(os.Stdout)
	if !ok {
		t.Skip("the live client's child process: runs only under LiveProbeChild")
	}
	if err != nil {
		t.Fatal(err)
	}
}

func childCommand(ctx context.Context) *exec.Cmd {
	return exec.CommandContext(ctx, os.Args[0], "-test.run=^TestLiveProbeChildProcess$", "-test.count=1")
}

// The child probes the server for its duration and hands back every
// request; stopped early through its context, it still hands back what it
// measured.
func TestLiveProbeChild(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	res, err := LiveProbeChild(childCommand(context.Background()),
		ProbeConfig{URL: srv.URL + "/", Interval: 5 * time.Millisecond, Duration: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Count < 10 || res.OK != res.Count || len(res.Requests) != res.Count || res.Elapsed < 300*time.Millisecond {
		t.Fatalf("child's probe: %d requests, %d OK, %d kept, over %v", res.Count, res.OK, len(res.Requests), res.Elapsed)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	start := time.Now()
	res, err = LiveProbeChild(childCommand(ctx), ProbeConfig{URL: srv.URL + "/", Interval: 5 * time.Millisecond, Duration: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 30*time.Second || res.Count == 0 || res.OK != res.Count {
		t.Fatalf("stopped child: %d requests, %d OK, back after %v", res.Count, res.OK, took)
	}
}

// The probe's requests split where the server's CPU first falls quiet
// after the attackers stopped pushing, not at an earlier quiet moment.
func TestSplitAtBurst(t *testing.T) {
	ms := time.Millisecond
	s := &CPUSampler{samples: []cpuSample{
		{0, 0}, {100 * ms, 10 * ms}, {200 * ms, 20 * ms}, {300 * ms, 30 * ms}, // quiet: the attack is dialing
		{400 * ms, 130 * ms}, {500 * ms, 300 * ms}, {600 * ms, 480 * ms}, {700 * ms, 650 * ms}, // the burst
		{800 * ms, 660 * ms}, {900 * ms, 670 * ms}, {1000 * ms, 680 * ms}, // quiet again
	}}
	probe := ProbeResult{Requests: []TimedRequest{{0, 150 * ms}, {150 * ms, 90 * ms}, {300 * ms, 2 * ms}, {450 * ms, 1 * ms}}}
	// The attack starts at 100 ms, the probe at 500 ms; the peers stop
	// pushing 500 ms into the attack (600 ms on the clock).
	b := s.SplitAtBurst(probe, 100*ms, 500*ms, 500*ms, 200*ms, 0.5)
	// At 900 ms the 200 ms before used 20 ms: the burst ended 800 ms into
	// the attack, 400 ms into the probe.
	if !b.Ended || b.End != 800*ms || b.During.Count != 3 || b.During.Max != 150*ms || b.After.Count != 1 || b.After.Max != ms {
		t.Errorf("split %+v", b)
	}
	b = s.SplitAtBurst(probe, 100*ms, 500*ms, 500*ms, 200*ms, 0.01)
	if b.Ended || b.During.Count != 4 || b.After.Count != 0 {
		t.Errorf("never quiet: split %+v", b)
	}
}
