package main

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// machine describes where the run happened.
type machine struct {
	date  time.Time
	cpu   string
	cores int
	// serverCores is what every server was given (-server-cores).
	serverCores int
	kernel      string
	goVer       string
	noFile      uint64
	tools       []string // version lines of wrk, ab, h2load
	gwist       string   // "available" or why not
	elapsed     time.Duration
	// loadStart is the 1-minute load average before anything ran;
	// othersCPU the share of the machine's CPU that processes other than
	// this run's used while it ran (-1: unknown). Both tell how noisy the
	// figures are.
	loadStart, othersCPU float64
}

func describeMachine() machine {
	return machine{date: time.Now().UTC(), cpu: cpuModel(), cores: runtime.NumCPU(), kernel: kernelRelease(),
		goVer: goVersion(), loadStart: loadAverage()}
}

// loadAverage returns the 1-minute load average, or -1.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func kernelRelease() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(b))
}
