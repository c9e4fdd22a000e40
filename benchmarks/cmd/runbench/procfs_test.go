package main

import (
	"os"
	"syscall"
	"testing"
)

func TestParseVmRSS(t *testing.T) {
	status := []byte("Name:\tnethttp\nVmPeak:\t  999 kB\nVmRSS:\t    8088 kB\nRssAnon:\t 100 kB\n")
	if got, err := parseVmRSS(status); err != nil || got != 8088*1024 {
		t.Fatalf("parseVmRSS = %d, %v", got, err)
	}
	if _, err := parseVmRSS([]byte("Name: x\n")); err == nil {
		t.Fatal("no VmRSS: want error")
	}
}

func TestParseStatCPU(t *testing.T) {
	// A command name with spaces and a parenthesis, then utime=250 stime=50.
	stat := []byte("1234 (my (odd) srv) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 100 0 0")
	if got, err := parseStatCPU(stat); err != nil || got != 3.0 {
		t.Fatalf("parseStatCPU = %v, %v; want 3s", got, err)
	}
	if _, err := parseStatCPU([]byte("1234 (x) S 1")); err == nil {
		t.Fatal("short stat: want error")
	}
}

func TestOwnProcess(t *testing.T) {
	rss, err := rssBytes(os.Getpid())
	if err != nil || rss <= 0 {
		t.Fatalf("rssBytes(self) = %d, %v", rss, err)
	}
	if _, err := cpuSeconds(os.Getpid()); err != nil {
		t.Fatalf("cpuSeconds(self): %v", err)
	}
}

func TestSelectWorkloads(t *testing.T) {
	ws, err := selectWorkloads("churn,plaintext,churn-nagle-t8")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, w := range ws {
		names = append(names, w.name)
	}
	want := "churn-nagle-t8 churn-nagle-t1 churn-nodelay-t8 churn-nodelay-t1 plaintext"
	if got := join(names); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	if _, err := selectWorkloads("nope"); err == nil {
		t.Fatal("unknown workload: want error")
	}
	if n := len(selectServers("gwist,nbio")); n != 4 {
		t.Fatalf("selectServers(gwist,nbio) = %d rows, want 4 (gwist and its variants, nbio)", n)
	}
}

func join(xs []string) string {
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += " "
		}
		s += x
	}
	return s
}

func TestParseStatUserSys(t *testing.T) {
	stat := []byte("1234 (my (odd) srv) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 100 0 0")
	if u, s, err := parseStatUserSys(stat); err != nil || u != 2.5 || s != 0.5 {
		t.Fatalf("parseStatUserSys = %v %v %v", u, s, err)
	}
}

func TestGroupCPUAndRSS(t *testing.T) {
	// This test's process is the leader of no group in general; use our
	// own pgid, which holds at least this process.
	pgid := syscall.Getpgrp()
	if _, err := groupCPUSeconds(pgid); err != nil {
		t.Skipf("group leader %d not readable: %v", pgid, err)
	}
	if rss, err := groupRSSBytes(pgid); err != nil || rss <= 0 {
		t.Fatalf("groupRSSBytes = %d, %v", rss, err)
	}
}
