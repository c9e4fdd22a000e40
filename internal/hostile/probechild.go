package hostile

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// A live client in a process of its own: in the attackers' process its
// goroutine queues behind a thousand attacking ones, and its latency is
// then the Go scheduler's as much as the server's.

// probeChildEnv hands the child its ProbeConfig, as JSON.
const probeChildEnv = "GWIST_HOSTILE_LIVE_CLIENT"

// probeResultPrefix marks the child's result (JSON) in its output.
const probeResultPrefix = "live-client-result: "

// probeChildGrace is how long the child may take to send its result after
// it was asked to stop (SIGTERM) before it is killed.
const probeChildGrace = 5 * time.Second

// LiveProbeChild runs LiveProbe(cfg) in the process cmd starts, and
// returns that process's result. The process must call ServeLiveProbeChild
// first thing: a command's main, or a test (run with -test.run) of a test
// binary. cmd should be made by exec.CommandContext: when its context is
// done, the child is asked to stop (SIGTERM) and sends the result of the
// requests it made. cfg.KeepRequests is set, for the phases.
func LiveProbeChild(cmd *exec.Cmd, cfg ProbeConfig) (ProbeResult, error) {
	cfg.KeepRequests = true
	js, err := json.Marshal(cfg)
	if err != nil {
		return ProbeResult{}, err
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, probeChildEnv+"="+string(js))
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = probeChildGrace
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	for line := range strings.Lines(string(out)) {
		if js, ok := strings.CutPrefix(line, probeResultPrefix); ok {
			var res ProbeResult
			if err := json.Unmarshal([]byte(js), &res); err != nil {
				return ProbeResult{}, fmt.Errorf("live client's result %q: %v", js, err)
			}
			return res, nil
		}
	}
	return ProbeResult{}, fmt.Errorf("live client process gave no result (%v):\n%s%s", err, out, stderr.Bytes())
}

// ServeLiveProbeChild is the child's side of LiveProbeChild. In a process
// LiveProbeChild started, it runs the probe (until its Duration has passed
// or SIGTERM comes), writes the result to w and reports true; in any
// other process it does nothing and reports false.
func ServeLiveProbeChild(w io.Writer) (bool, error) {
	v, ok := os.LookupEnv(probeChildEnv)
	if !ok {
		return false, nil
	}
	var cfg ProbeConfig
	if err := json.Unmarshal([]byte(v), &cfg); err != nil {
		return true, fmt.Errorf("%s=%q: %v", probeChildEnv, v, err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	js, err := json.Marshal(LiveProbe(ctx, cfg))
	if err != nil {
		return true, err
	}
	_, err = fmt.Fprintf(w, "%s%s\n", probeResultPrefix, js)
	return true, err
}
