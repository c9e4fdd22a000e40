package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// userHZ is the unit of utime/stime in /proc/PID/stat (USER_HZ, 100 on
// every Linux architecture Go supports).
const userHZ = 100

// rssBytes reads VmRSS of pid from /proc/PID/status.
func rssBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseVmRSS(b)
}

func parseVmRSS(status []byte) (int64, error) {
	for _, l := range bytes.Split(status, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(l, []byte("VmRSS:")); ok {
			f := strings.Fields(string(rest))
			if len(f) < 1 {
				break
			}
			kb, err := strconv.ParseInt(f[0], 10, 64)
			if err != nil {
				return 0, err
			}
			return kb * 1024, nil
		}
	}
	return 0, fmt.Errorf("no VmRSS line")
}

// cpuSeconds reads utime+stime of pid (all its threads, dead ones
// included) from /proc/PID/stat.
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(b)
}

func parseStatCPU(stat []byte) (float64, error) {
	// The command name (field 2) is in parentheses and may hold spaces.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed stat")
	}
	f := strings.Fields(string(stat[i+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("short stat")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("bad utime/stime %q %q", f[11], f[12])
	}
	return float64(ut+st) / userHZ, nil
}

// groupCPUSeconds is cpuSeconds summed over the processes of process group
// pgid: the servers run in their own group, and nginx's workers are
// processes beside its master (for a Go server it is its one process).
func groupCPUSeconds(pgid int) (float64, error) {
	return sumGroup(pgid, cpuSeconds)
}

// groupRSSBytes is rssBytes summed over process group pgid.
func groupRSSBytes(pgid int) (int64, error) {
	v, err := sumGroup(pgid, func(pid int) (float64, error) {
		b, err := rssBytes(pid)
		return float64(b), err
	})
	return int64(v), err
}

func sumGroup(pgid int, f func(int) (float64, error)) (float64, error) {
	total, err := f(pgid) // the leader; its error is the group's
	if err != nil {
		return 0, err
	}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, perr := strconv.Atoi(e.Name())
		if perr != nil || pid == pgid {
			continue
		}
		b, rerr := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if rerr != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fs := strings.Fields(string(b[i+1:]))
		// fs[0] is field 3 (state), fs[2] field 5 (pgrp).
		if len(fs) < 3 || fs[2] != strconv.Itoa(pgid) {
			continue
		}
		if v, ferr := f(pid); ferr == nil {
			total += v
		}
	}
	return total, nil
}

// groupSystemSeconds is stime alone (the kernel's share) summed over
// process group pgid.
func groupSystemSeconds(pgid int) (float64, error) {
	return sumGroup(pgid, func(pid int) (float64, error) {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return 0, err
		}
		_, sys, err := parseStatUserSys(b)
		return sys, err
	})
}

// parseStatUserSys returns utime and stime of a /proc/PID/stat line, in
// seconds.
func parseStatUserSys(stat []byte) (user, sys float64, err error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("malformed stat")
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("short stat")
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("bad utime/stime %q %q", f[11], f[12])
	}
	return float64(ut) / userHZ, float64(st) / userHZ, nil
}
