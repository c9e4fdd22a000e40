package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gwist/gwist/benchmarks/internal/stats"
)

// rowResult collects one server's outcomes in one workload, a round each.
type rowResult struct {
	def      serverDef
	staticNA string // known before running: not applicable or not available
	rounds   []outcome
}

// table is one workload's results.
type table struct {
	w       workload
	skipped string // the whole workload was skipped, and why
	rows    []*rowResult
}

// summary is a row reduced to medians.
type summary struct {
	values    map[string]float64 // median over the rounds that succeeded
	na, err   string
	ok, total int
	notes     []string
}

func (r *rowResult) summarize() summary {
	s := summary{}
	if r.staticNA != "" {
		s.na = r.staticNA
		return s
	}
	var good []outcome
	failed := map[string][]int{} // message → rounds
	var order []string
	for i, o := range r.rounds {
		switch {
		case o.err != nil:
			msg := o.err.Error()
			if _, seen := failed[msg]; !seen {
				order = append(order, msg)
			}
			failed[msg] = append(failed[msg], i+1)
			s.total++
		case o.na != "":
			if s.na == "" {
				s.na = o.na
			}
		default:
			good = append(good, o)
			s.total++
			if o.note != "" {
				s.notes = appendUnique(s.notes, fmt.Sprintf("round %d: %s", i+1, o.note))
			}
		}
	}
	s.ok = len(good)
	if len(good) == 0 {
		switch {
		case len(order) == 1:
			s.err = order[0]
		case len(order) > 1:
			s.err = order[0]
			s.notes = failureNotes(order, failed)
		}
		if s.err != "" {
			s.na = ""
		}
		return s
	}
	s.na = ""
	s.notes = append(failureNotes(order, failed), s.notes...)
	s.values = map[string]float64{}
	keys := map[string]bool{}
	for _, o := range good {
		for k := range o.values {
			keys[k] = true
		}
	}
	for k := range keys {
		var xs []float64
		for _, o := range good {
			if v, ok := o.values[k]; ok && !math.IsNaN(v) {
				xs = append(xs, v)
			}
		}
		s.values[k] = stats.Median(xs)
	}
	return s
}

// failureNotes says which rounds failed with which message.
func failureNotes(order []string, failed map[string][]int) []string {
	var notes []string
	for _, msg := range order {
		rounds := failed[msg]
		word := "round"
		if len(rounds) > 1 {
			word = "rounds"
		}
		notes = append(notes, fmt.Sprintf("%s %s failed: %s", word, strings.Trim(strings.Join(strings.Fields(fmt.Sprint(rounds)), ","), "[]"), msg))
	}
	return notes
}

func appendUnique(xs []string, x string) []string {
	if slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

// primary returns the row's median primary figure, if it has one.
func (t *table) primary(r *rowResult) (float64, bool) {
	s := r.summarize()
	v, ok := s.values[t.w.primary]
	return v, ok && v > 0 && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// bestPeer returns the peer (not ours, not the ceiling) with the best
// median primary figure.
func (t *table) bestPeer() (name string, value float64, ok bool) {
	for _, r := range t.rows {
		if r.def.ours || r.def.ceiling || r.def.cref {
			continue
		}
		v, has := t.primary(r)
		if !has {
			continue
		}
		if !ok || (t.w.higher && v > value) || (!t.w.higher && v < value) {
			name, value, ok = r.def.name, v, true
		}
	}
	return name, value, ok
}

// ceiling returns gnetbare's median primary figure, if it ran.
func (t *table) ceiling() (float64, bool) {
	for _, r := range t.rows {
		if r.def.ceiling {
			return t.primary(r)
		}
	}
	return 0, false
}

// ratio compares ours with other so that > 1 always means ours is better:
// ours/other for higher-is-better figures, other/ours for lower-is-better.
func (t *table) ratio(ours, other float64) float64 {
	if t.w.higher {
		return ours / other
	}
	return other / ours
}

// ourRows returns the rows of gwist and its variants.
func (t *table) ourRows() []*rowResult {
	var out []*rowResult
	for _, r := range t.rows {
		if r.def.ours {
			out = append(out, r)
		}
	}
	return out
}

// row returns the row called name, or nil.
func (t *table) row(name string) *rowResult {
	for _, r := range t.rows {
		if r.def.name == name {
			return r
		}
	}
	return nil
}
