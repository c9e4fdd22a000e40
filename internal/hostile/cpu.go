package hostile

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clockTick is the unit of /proc/PID/stat's CPU times (USER_HZ), 100 per
// second on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// ReadCPU returns the CPU time (user and system) process pid has used,
// from /proc/PID/stat (Linux only), in 10 ms steps.
func ReadCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from its closing one. After it: state, then utime is the 12th and
	// stime the 13th (fields 14 and 15 of proc(5)).
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("/proc/%d/stat: %v", pid, err)
		}
		ticks += n
	}
	return time.Duration(ticks) * clockTick, nil
}

// CPUSampler reads a process's CPU time at a fixed interval, to tell when
// it stopped being busy.
type CPUSampler struct {
	pid   int
	start time.Time

	mu      sync.Mutex
	samples []cpuSample
	err     error

	stopOnce sync.Once
	stop     chan struct{}
	done     chan struct{}
}

// cpuSample is the CPU time a process had used at a moment (since the
// sampler started).
type cpuSample struct {
	at, cpu time.Duration
}

// SampleCPU reads pid's CPU time now and then every interval (default
// 100 ms) until Stop.
func SampleCPU(pid int, interval time.Duration) (*CPUSampler, error) {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	cpu, err := ReadCPU(pid)
	if err != nil {
		return nil, err
	}
	s := &CPUSampler{pid: pid, start: time.Now(), samples: []cpuSample{{0, cpu}},
		stop: make(chan struct{}), done: make(chan struct{})}
	go every(interval, s.stop, s.done, s.sample)
	return s, nil
}

// sample reads the CPU time once; it reports false once the process is
// gone (nothing more to see).
func (s *CPUSampler) sample() bool {
	cpu, err := ReadCPU(s.pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.err = err
		return false
	}
	s.samples = append(s.samples, cpuSample{time.Since(s.start), cpu})
	return true
}

// Since is the time since the sampler started, the clock of SplitAtBurst.
func (s *CPUSampler) Since() time.Duration { return time.Since(s.start) }

// Stop ends the sampling; it returns the error that ended it early, if
// any. It may be called more than once.
func (s *CPUSampler) Stop() error {
	s.stopOnce.Do(func() { close(s.stop) })
	<-s.done
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// quietAt returns the first moment from from on (since the sampler
// started) at which the process had used less than cores of CPU over the
// window before it: the end of a burst of work. It reports false when no
// window was that quiet.
func (s *CPUSampler) quietAt(from, window time.Duration, cores float64) (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := 0 // the window's first sample
	for i, x := range s.samples {
		for j < i && x.at-s.samples[j+1].at >= window {
			j++
		}
		w := s.samples[j]
		if span := x.at - w.at; x.at >= from && span >= window && float64(x.cpu-w.cpu) < cores*float64(span) {
			return x.at, true
		}
	}
	return 0, false
}
