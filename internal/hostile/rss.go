package hostile

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ReadRSS returns VmRSS of process pid in bytes, from /proc/PID/status
// (Linux only).
func ReadRSS(pid int) (int64, error) {
	rss, _, err := ReadMem(pid)
	return rss, err
}

// ReadMem returns VmRSS and RssAnon of process pid in bytes, from
// /proc/PID/status (Linux only). RssAnon is the memory the process
// allocated (heap, stacks); VmRSS adds the pages of its binary and
// libraries it has touched, which grow as code runs for the first time
// and are not memory a server holds for its clients.
func ReadMem(pid int) (rss, anon int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	found := 0
	for _, l := range strings.Split(string(b), "\n") {
		for _, f := range []struct {
			name string
			dst  *int64
		}{{"VmRSS:", &rss}, {"RssAnon:", &anon}} {
			if rest, ok := strings.CutPrefix(l, f.name); ok {
				if v := strings.Fields(rest); len(v) >= 1 {
					kb, err := strconv.ParseInt(v[0], 10, 64)
					if err != nil {
						return 0, 0, err
					}
					*f.dst = kb << 10
					found++
				}
			}
		}
	}
	if found != 2 {
		return 0, 0, fmt.Errorf("no VmRSS or RssAnon in /proc/%d/status", pid)
	}
	return rss, anon, nil
}

// RecoveryMargin is how close to AnonBefore the anonymous RSS must come
// back to count as recovered: within 20 %.
const RecoveryMargin = 0.20

// RSSResult is what an [RSSSampler] saw. Sizes are bytes.
type RSSResult struct {
	Before int64 // when sampling started
	Peak   int64
	PeakAt time.Duration // since sampling started
	End    int64         // at MarkEnd (the end of the attack)
	After  int64         // at the end of WaitAfter (or Stop)
	// AfterWait is how long after MarkEnd After was read.
	AfterWait time.Duration
	// The same for the anonymous RSS (RssAnon: see ReadMem).
	AnonBefore, AnonPeak, AnonEnd, AnonAfter int64
	// Recovered: a sample after MarkEnd had its anonymous RSS within
	// RecoveryMargin of AnonBefore, RecoveredAfter past MarkEnd.
	Recovered      bool
	RecoveredAfter time.Duration
	Samples        int
	Err            string `json:",omitempty"`
}

// RSSSampler samples a process's RSS at a fixed interval.
type RSSSampler struct {
	pid   int
	start time.Time

	mu     sync.Mutex
	res    RSSResult
	endAt  time.Time // zero until MarkEnd
	stop   chan struct{}
	done   chan struct{}
	closed bool
}

// SampleRSS reads pid's RSS now (Before) and then every interval (default
// 100 ms) until Stop or WaitAfter.
func SampleRSS(pid int, interval time.Duration) (*RSSSampler, error) {
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	rss, anon, err := ReadMem(pid)
	if err != nil {
		return nil, err
	}
	s := &RSSSampler{pid: pid, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	s.res.Before, s.res.Peak, s.res.Samples = rss, rss, 1
	s.res.AnonBefore, s.res.AnonPeak = anon, anon
	go every(interval, s.stop, s.done, func() bool { s.sample(); return true })
	return s, nil
}

// every calls f each interval until stop is closed or f reports false,
// then closes done: the samplers' loop.
func every(interval time.Duration, stop <-chan struct{}, done chan<- struct{}, f func() bool) {
	defer close(done)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		if !f() {
			return
		}
	}
}

// sample reads RSS once and folds it in; it returns the values (-1 on
// error).
func (s *RSSSampler) sample() (rss, anon int64) {
	rss, anon, err := ReadMem(s.pid)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		if s.res.Err == "" {
			s.res.Err = err.Error()
		}
		return -1, -1
	}
	s.res.Samples++
	if rss > s.res.Peak {
		s.res.Peak, s.res.PeakAt = rss, time.Since(s.start)
	}
	s.res.AnonPeak = max(s.res.AnonPeak, anon)
	if !s.endAt.IsZero() && !s.res.Recovered && float64(anon) <= float64(s.res.AnonBefore)*(1+RecoveryMargin) {
		s.res.Recovered, s.res.RecoveredAfter = true, time.Since(s.endAt)
	}
	return rss, anon
}

// Now returns what has been seen so far.
func (s *RSSSampler) Now() RSSResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.res
}

// MarkEnd records the end of the attack: End is read now, and from now on
// the sampler watches for RSS coming back within RecoveryMargin of Before.
func (s *RSSSampler) MarkEnd() {
	s.mu.Lock()
	s.endAt = time.Now()
	s.mu.Unlock()
	rss, anon := s.sample()
	s.mu.Lock()
	s.res.End, s.res.AnonEnd = rss, anon
	s.mu.Unlock()
}

// WaitAfter waits d after MarkEnd (MarkEnd is called now if it was not),
// or less when ctx is done, then reads After and stops sampling. With
// early set it returns as soon as the anonymous RSS has recovered.
func (s *RSSSampler) WaitAfter(ctx context.Context, d time.Duration, early bool) RSSResult {
	s.mu.Lock()
	marked := !s.endAt.IsZero()
	s.mu.Unlock()
	if !marked {
		s.MarkEnd()
	}
	s.mu.Lock()
	deadline := s.endAt.Add(d)
	s.mu.Unlock()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for time.Now().Before(deadline) {
		if early && s.Now().Recovered {
			break
		}
		select {
		case <-ctx.Done():
			return s.Stop()
		case <-t.C:
		}
	}
	return s.Stop()
}

// Stop reads After, stops sampling and returns the result.
func (s *RSSSampler) Stop() RSSResult {
	s.mu.Lock()
	if s.closed {
		defer s.mu.Unlock()
		return s.res
	}
	s.closed = true
	s.mu.Unlock()
	close(s.stop)
	<-s.done
	rss, anon := s.sample()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.After, s.res.AnonAfter = rss, anon
	if !s.endAt.IsZero() {
		s.res.AfterWait = time.Since(s.endAt)
	}
	return s.res
}
