package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuSnapshot is the machine's busy CPU time and the part of it this
// process and its waited-for children (servers, load generators, builds)
// account for.
type cpuSnapshot struct {
	at          time.Time
	machineBusy float64 // seconds, from /proc/stat
	ours        float64 // seconds, getrusage self + children
}

func takeCPUSnapshot() cpuSnapshot {
	s := cpuSnapshot{at: time.Now()}
	if b, err := os.ReadFile("/proc/stat"); err == nil {
		s.machineBusy = parseProcStatBusy(b)
	}
	for _, who := range []int{syscall.RUSAGE_SELF, syscall.RUSAGE_CHILDREN} {
		var ru syscall.Rusage
		if syscall.Getrusage(who, &ru) == nil {
			s.ours += tvSeconds(ru.Utime) + tvSeconds(ru.Stime)
		}
	}
	return s
}

func tvSeconds(tv syscall.Timeval) float64 { return float64(tv.Sec) + float64(tv.Usec)/1e6 }

// parseProcStatBusy sums the non-idle fields of the "cpu" line of
// /proc/stat (user nice system idle iowait irq softirq steal ...), in seconds.
func parseProcStatBusy(stat []byte) float64 {
	line, _, _ := bytes.Cut(stat, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	var busy int64
	for i, v := range f[1:9] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		busy += n
	}
	return float64(busy) / userHZ
}

// othersShare returns the share of the machine's CPU capacity that other
// processes used between a and b (0..1), or -1 when unknown.
func othersShare(a, b cpuSnapshot, cores int) float64 {
	wall := b.at.Sub(a.at).Seconds()
	if wall <= 0 || a.machineBusy == 0 || cores <= 0 {
		return -1
	}
	others := (b.machineBusy - a.machineBusy) - (b.ours - a.ours)
	return max(0, others/(wall*float64(cores)))
}
