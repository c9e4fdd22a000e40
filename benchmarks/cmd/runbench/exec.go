package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// toolRun is the captured result of one load-generator run.
type toolRun struct {
	stdout, stderr []byte
	err            error
	// cpu is the tool's own user+system CPU time in seconds (its rusage;
	// 0 when it did not run).
	cpu float64
}

// combined is stdout followed by stderr, for tools that report errors on
// either.
func (r toolRun) combined() string { return string(r.stdout) + string(r.stderr) }

// runTool runs name with args in its own process group, killed (the whole
// group) when ctx ends or timeout passes. Its output is also appended to
// logPath.
func runTool(ctx context.Context, timeout time.Duration, logPath, name string, args ...string) toolRun {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		err = fmt.Errorf("%s timed out after %v", name, timeout)
	}
	if f, ferr := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); ferr == nil {
		fmt.Fprintf(f, "$ %s %s\n%s%s(exit: %v)\n\n", name, strings.Join(args, " "), out.Bytes(), errb.Bytes(), err)
		f.Close()
	}
	r := toolRun{stdout: out.Bytes(), stderr: errb.Bytes(), err: err}
	if cmd.ProcessState != nil {
		r.cpu = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	}
	return r
}

// shellJoin renders a command line for the report.
func shellJoin(name string, args []string) string {
	parts := append([]string{name}, args...)
	for i, p := range parts {
		if p == "" || strings.ContainsAny(p, " \t\"'$") {
			parts[i] = "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
		}
	}
	return strings.Join(parts, " ")
}

// firstLine returns the first non-empty line of s, shortened.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 160 {
				l = l[:160] + "…"
			}
			return l
		}
	}
	return ""
}
