// Command schedstates reads a Go execution trace (runtime/trace) of a
// server under load and says how its 2 Ps were used: how long goroutines
// were runnable while fewer than GOMAXPROCS ran, which syscalls held a P
// meanwhile, and how a gnet event loop's goroutine spent the time (the
// first loop seen: with several loops, the others are not followed).
//
//	schedstates [-procs 2] trace.out
//
// Take the trace from examples/hello at /debug/pprof/trace?seconds=1, or
// from a peer server started with BENCH_TRACE_FILE=path (SIGUSR1 writes
// one second). RESULTS.md, "Issue 26's item 4: the scheduler's view", is
// where its figures are used.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"golang.org/x/exp/trace"
)

const loopFunc = "github.com/panjf2000/gnet/v2.(*eventloop).run"

func main() {
	procs := flag.Int("procs", 2, "GOMAXPROCS of the traced process")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: schedstates [-procs N] trace.out")
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fatal(err)
	}
	defer f.Close()
	a, err := analyze(f, *procs)
	if err != nil {
		fatal(err)
	}
	a.print(os.Stdout)
}

// analyze reads a whole trace of a process with procs Ps.
func analyze(in io.Reader, procs int) (*analysis, error) {
	r, err := trace.NewReader(in)
	if err != nil {
		return nil, err
	}
	a := newAnalysis(procs)
	for {
		ev, err := r.ReadEvent()
		if err == io.EOF {
			return a, nil
		}
		if err != nil {
			return nil, err
		}
		a.event(&ev)
	}
}

// analysis accumulates milliseconds per scheduling situation.
type analysis struct {
	procs   int
	state   map[trace.GoID]trace.GoState
	count   map[trace.GoState]int
	sysAt   map[trace.GoID]string // where each goroutine in a syscall entered it
	last    trace.Time
	started bool

	bySituation map[string]float64 // (running, in syscall, any runnable)
	starved     float64            // fewer than procs running, some runnable
	nothing     float64            // nothing running, in a syscall or runnable
	heldBy      map[string]float64 // syscalls holding a P while work waits

	loop      trace.GoID // the gnet loop's goroutine (the first one seen)
	loopSince trace.Time
	loopIn    map[trace.GoState]float64
}

func newAnalysis(procs int) *analysis {
	return &analysis{
		procs:       procs,
		state:       map[trace.GoID]trace.GoState{},
		count:       map[trace.GoState]int{},
		sysAt:       map[trace.GoID]string{},
		bySituation: map[string]float64{},
		heldBy:      map[string]float64{},
		loop:        trace.NoGoroutine,
		loopIn:      map[trace.GoState]float64{},
	}
}

func (a *analysis) event(ev *trace.Event) {
	t := ev.Time()
	if a.started {
		a.account(float64(t-a.last) / 1e6)
	}
	a.last, a.started = t, true
	if ev.Kind() != trace.EventStateTransition {
		return
	}
	st := ev.StateTransition()
	if st.Resource.Kind != trace.ResourceGoroutine {
		return
	}
	id := st.Resource.Goroutine()
	from, to := st.Goroutine()
	if old, ok := a.state[id]; ok {
		a.count[old]--
	}
	a.state[id] = to
	a.count[to]++
	if id == a.loop {
		a.loopIn[from] += float64(t-a.loopSince) / 1e6
		a.loopSince = t
	} else if a.loop == trace.NoGoroutine && ev.Goroutine() == id && onStack(ev, loopFunc) {
		a.loop, a.loopSince = id, t
	}
	if to == trace.GoSyscall {
		a.sysAt[id] = where(ev)
	}
}

// account adds dt to the situation the goroutines are in.
func (a *analysis) account(dt float64) {
	running, insys, runnable := a.count[trace.GoRunning], a.count[trace.GoSyscall], a.count[trace.GoRunnable]
	key := fmt.Sprintf("running %d, in a syscall %d, runnable ones waiting: %v", running, min(insys, 3), runnable > 0)
	a.bySituation[key] += dt
	if running < a.procs && runnable > 0 {
		a.starved += dt
	}
	if running+insys+runnable == 0 {
		a.nothing += dt
	}
	if running < a.procs && runnable > 0 && insys > 0 {
		for id, w := range a.sysAt {
			if a.state[id] == trace.GoSyscall {
				a.heldBy[w] += dt / float64(insys)
			}
		}
	}
}

func (a *analysis) print(w io.Writer) {
	total := 0.0
	for _, v := range a.bySituation {
		total += v
	}
	fmt.Fprintf(w, "%.1f ms traced\n", total)
	fmt.Fprintf(w, "fewer than %d goroutines running while others were runnable: %.1f ms (%.1f %%)\n", a.procs, a.starved, 100*a.starved/total)
	fmt.Fprintf(w, "no goroutine running, runnable or in a syscall: %.1f ms (%.1f %%)\n", a.nothing, 100*a.nothing/total)
	fmt.Fprintf(w, "\ngoroutines (time, share):\n")
	printSorted(w, a.bySituation, total, 0)
	fmt.Fprintf(w, "\nsyscalls in progress while fewer than %d ran and others were runnable:\n", a.procs)
	printSorted(w, a.heldBy, total, 1)
	if a.loop != trace.NoGoroutine {
		in := map[string]float64{}
		for st, v := range a.loopIn {
			in[st.String()] += v
		}
		fmt.Fprintf(w, "\nthe gnet loop's goroutine (%d):\n", a.loop)
		printSorted(w, in, total, 0)
	}
}

func printSorted(w io.Writer, m map[string]float64, total, atLeast float64) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] })
	for _, k := range keys {
		if m[k] >= atLeast {
			fmt.Fprintf(w, "  %8.1f ms %5.1f %%  %s\n", m[k], 100*m[k]/total, k)
		}
	}
}

func onStack(ev *trace.Event, fn string) bool {
	for fr := range ev.Stack().Frames() {
		if fr.Func == fn {
			return true
		}
	}
	return false
}

// where names a syscall by the three innermost frames of its stack.
func where(ev *trace.Event) string {
	var fns []string
	for fr := range ev.Stack().Frames() {
		if len(fns) == 3 {
			break
		}
		fns = append(fns, fr.Func)
	}
	return strings.Join(fns, " < ")
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "schedstates:", err)
	os.Exit(1)
}
