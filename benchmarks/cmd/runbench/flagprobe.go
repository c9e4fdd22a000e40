package main

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

var usageFlag = regexp.MustCompile(`(?m)^\s+-([A-Za-z0-9][A-Za-z0-9_.-]*)`)

// probeFlags runs a Go program with -h and returns the flag names its usage
// lists, or nil when it printed none (then nothing is assumed).
func probeFlags(ctx context.Context, path string) map[string]bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, path, "-h").CombinedOutput()
	return parseUsageFlags(string(out))
}

func parseUsageFlags(usage string) map[string]bool {
	m := map[string]bool{}
	for _, sub := range usageFlag.FindAllStringSubmatch(usage, -1) {
		m[sub[1]] = true
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

// missingFlags returns the flags in args that have is known not to define.
func missingFlags(args []string, have map[string]bool) []string {
	if have == nil {
		return nil
	}
	var missing []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !have[name] {
			missing = append(missing, "-"+name)
		}
	}
	return missing
}
