package main

import (
	"errors"
	"math"
	"testing"
)

func TestSummarizeMedianAndFailures(t *testing.T) {
	r := &rowResult{rounds: []outcome{
		{values: map[string]float64{"rps": 100}},
		{err: errors.New("boom")},
		{values: map[string]float64{"rps": 300}, note: "2 errors"},
	}}
	s := r.summarize()
	if s.values["rps"] != 200 || s.ok != 2 || s.total != 3 || s.err != "" {
		t.Fatalf("summary %+v", s)
	}
	if len(s.notes) != 2 {
		t.Fatalf("notes %q", s.notes)
	}
	r = &rowResult{rounds: []outcome{{err: errors.New("boom")}, {err: errors.New("bang")}, {err: errors.New("boom")}}}
	if s := r.summarize(); s.err != "boom" || s.values != nil || len(s.notes) != 2 ||
		s.notes[0] != "rounds 1,3 failed: boom" || s.notes[1] != "round 2 failed: bang" {
		t.Fatalf("all failed: %+v", s)
	}
	r = &rowResult{rounds: []outcome{{err: errors.New("boom")}, {err: errors.New("boom")}}}
	if s := r.summarize(); s.err != "boom" || len(s.notes) != 0 {
		t.Fatalf("same failure twice: %+v", s)
	}
	r = &rowResult{rounds: []outcome{{na: "no h2"}, {na: "no h2"}}}
	if s := r.summarize(); s.na != "no h2" || s.err != "" || s.total != 0 {
		t.Fatalf("n/a: %+v", s)
	}
	r = &rowResult{staticNA: "plaintext only"}
	if s := r.summarize(); s.na != "plaintext only" {
		t.Fatalf("static n/a: %+v", s)
	}
}

func row(name string, ours, ceiling bool, v ...float64) *rowResult {
	r := &rowResult{def: serverDef{name: name, ours: ours, ceiling: ceiling}}
	for _, x := range v {
		r.rounds = append(r.rounds, outcome{values: map[string]float64{"m": x}})
	}
	return r
}

func TestBestPeerAndRatio(t *testing.T) {
	tb := &table{w: workload{primary: "m", higher: true}, rows: []*rowResult{
		row("gwist", true, false, 300, 500),
		row("nethttp", false, false, 100, 100),
		row("fasthttp", false, false, 190, 210),
		row("gnetbare", false, true, 800),
		{def: serverDef{name: "nbio"}, staticNA: "x"},
	}}
	name, v, ok := tb.bestPeer()
	if !ok || name != "fasthttp" || v != 200 {
		t.Fatalf("best peer %q %v %v", name, v, ok)
	}
	g, _ := tb.primary(tb.rows[0])
	if r := tb.ratio(g, v); r != 2 {
		t.Fatalf("ratio %v", r)
	}
	if c, ok := tb.ceiling(); !ok || tb.ratio(g, c) != 0.5 {
		t.Fatalf("ceiling %v %v", c, ok)
	}
	tb.w.higher = false // e.g. latency: the lowest peer is best, ratio inverted
	name, v, _ = tb.bestPeer()
	if name != "nethttp" || math.Abs(tb.ratio(400, v)-0.25) > 1e-9 {
		t.Fatalf("lower-is-better: %q %v", name, tb.ratio(400, v))
	}
}
