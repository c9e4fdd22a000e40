package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// rssBytes reads VmRSS of pid from /proc/PID/status.
func rssBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				return kb << 10, err
			}
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// clockTick is USER_HZ, the unit of utime and stime in /proc/PID/stat (100
// on every Linux this runs on).
const clockTick = 100

// procCPU is utime+stime of pid from /proc/PID/stat.
func procCPU(pid int) (time.Duration, error) {
	t, err := procTimes(pid)
	return t.user + t.sys, err
}

// cpuTimes is a process's CPU time, user and system apart.
type cpuTimes struct{ user, sys time.Duration }

// procTimes is utime and stime of pid from /proc/PID/stat.
func procTimes(pid int) (cpuTimes, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return cpuTimes{}, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return cpuTimes{}, fmt.Errorf("bad /proc/%d/stat", pid)
	}
	f := strings.Fields(s[i+1:])
	// Fields after the command: state is [0], utime [11], stime [12].
	if len(f) < 13 {
		return cpuTimes{}, fmt.Errorf("short /proc/%d/stat", pid)
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return cpuTimes{}, fmt.Errorf("bad /proc/%d/stat", pid)
	}
	return cpuTimes{user: time.Duration(u) * time.Second / clockTick, sys: time.Duration(st) * time.Second / clockTick}, nil
}

// selfCPU is this process's user+system time.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
