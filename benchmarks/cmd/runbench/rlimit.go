package main

import "syscall"

// raiseNoFile lifts RLIMIT_NOFILE as far as it goes (to 65536 when root may
// raise the hard limit, else to the hard limit). Calling Setrlimit also
// stops the Go runtime from restoring the old soft limit in children, so
// servers and load generators inherit the raised one.
func raiseNoFile() (soft, hard uint64, err error) {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, 0, err
	}
	if r.Max < 65536 {
		want := syscall.Rlimit{Cur: 65536, Max: 65536}
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want) == nil {
			return want.Cur, want.Max, nil
		}
	}
	r.Cur = r.Max
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		return 0, 0, err
	}
	return r.Cur, r.Max, nil
}

// currentNoFile is the soft RLIMIT_NOFILE (1024 when unknown).
func currentNoFile() uint64 {
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r) != nil {
		return 1024
	}
	return r.Cur
}
