package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"time"
)

// externalTools maps each load generator to its Debian package.
var externalTools = [][2]string{
	{"wrk", "wrk"},
	{"ab", "apache2-utils"},
	{"h2load", "nghttp2-client"},
}

// ensureTools finds wrk, ab and h2load, installing the missing ones with
// apt-get when running as root (and install is true). It returns, for each
// tool still missing, the reason to print in place of its results.
func ensureTools(ctx context.Context, install bool) map[string]string {
	missing := map[string]string{}
	var pkgs []string
	for _, t := range externalTools {
		if _, err := exec.LookPath(t[0]); err != nil {
			pkgs = append(pkgs, t[1])
		}
	}
	if len(pkgs) > 0 && install && os.Geteuid() == 0 {
		logf("installing %s", strings.Join(pkgs, " "))
		if aptInstall(ctx, pkgs) != nil {
			_ = apt(ctx, "update")
			_ = aptInstall(ctx, pkgs)
		}
	}
	for _, t := range externalTools {
		if _, err := exec.LookPath(t[0]); err != nil {
			missing[t[0]] = t[0] + " not found; install it with: apt-get install -y " + t[1]
			logf("%s: skipping its workloads", missing[t[0]])
		}
	}
	return missing
}

func aptInstall(ctx context.Context, pkgs []string) error {
	return apt(ctx, append([]string{"install", "-y"}, pkgs...)...)
}

func apt(ctx context.Context, args ...string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "apt-get", args...)
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// toolVersion returns the first line a tool prints about its version.
func toolVersion(name string, args ...string) string {
	out, _ := exec.Command(name, args...).CombinedOutput()
	return firstLine(string(out))
}
