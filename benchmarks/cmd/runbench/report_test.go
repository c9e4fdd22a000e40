package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestFmtNum(t *testing.T) {
	cases := []struct {
		v    float64
		dec  int
		want string
	}{{146608.75, 0, "146,609"}, {1234567.891, 2, "1,234,567.89"}, {999, 0, "999"}, {-1000, 1, "-1,000.0"}, {0.5, 3, "0.500"}}
	for _, c := range cases {
		if got := fmtNum(c.v, c.dec); got != c.want {
			t.Errorf("fmtNum(%v, %d) = %q, want %q", c.v, c.dec, got, c.want)
		}
	}
}

func TestWriteMarkdown(t *testing.T) {
	w := rateWorkload()
	tb := &table{w: w, rows: []*rowResult{
		{def: serverDef{name: "gwist", ours: true}, rounds: []outcome{{values: map[string]float64{"p99": 1}}, {values: map[string]float64{"p99": 3}}}},
		{def: serverDef{name: "nethttp"}, rounds: []outcome{{values: map[string]float64{"p99": 4}}, {err: errors.New("port | busy")}}},
		{def: serverDef{name: "gnetbare", ceiling: true}, staticNA: "plaintext only"},
	}}
	skipped := &table{w: abWorkload(), skipped: "ab not found"}
	r := &report{m: machine{cpu: "Test CPU", cores: 2}, o: quickOptions(), tables: []*table{tb, skipped},
		servers: allServers, svgName: "results.svg"}
	var b bytes.Buffer
	r.writeMarkdown(&b)
	md := b.String()
	for _, want := range []string{
		"Quick smoke run", "Test CPU, 2 cores", "same 2-core machine", "![gwist ÷ best peer](results.svg)",
		"ratebench -addr 127.0.0.1:PORT -rate 5000", // exact command line
		"| rate | p99 ms | gwist | 2.000 | nethttp 4.000 | **2.00×** |",
		"round 2 failed: port \\| busy", // escaped for the table
		"n/a (plaintext only)", "Skipped: ab not found", "1/2",
		"gwist ÷ best peer (nethttp) = **2.00×**",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("RESULTS.md lacks %q", want)
		}
	}
	c := r.chart()
	if len(c.Bars) != 1 || c.Bars[0].Value != 2 {
		t.Errorf("chart bars %+v", c.Bars)
	}
}

func TestSummaryCRefRatios(t *testing.T) {
	w := rateWorkload() // p99, lower is better
	tb := &table{w: w, rows: []*rowResult{
		{def: serverDef{name: "gwist", ours: true}, rounds: []outcome{{values: map[string]float64{"p99": 2}}}},
		{def: serverDef{name: "nethttp"}, rounds: []outcome{{values: map[string]float64{"p99": 4}}}},
		{def: serverDef{name: "nginx", cref: true}, rounds: []outcome{{values: map[string]float64{"p99": 1}}}},
		{def: serverDef{name: "h2o", cref: true}, staticNA: "not available: h2o not found"},
	}}
	r := &report{m: machine{cpu: "Test CPU", cores: 2, serverCores: 2}, o: quickOptions(), tables: []*table{tb},
		servers: allServers, svgName: "results.svg"}
	var b bytes.Buffer
	r.writeMarkdown(&b)
	md := b.String()
	for _, want := range []string{
		"GOMAXPROCS=2", "`worker_processes 2`",
		"| gwist ÷ best Go peer | nginx | gwist ÷ nginx | h2o | gwist ÷ h2o |",
		"| rate | p99 ms | gwist | 2.000 | nethttp 4.000 | **2.00×** | 1.000 | **0.50×** | n/a (not available: h2o not found) | – |",
		"gwist ÷ nginx = **0.50×**", "servers/cref/nginx.conf.tmpl",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("RESULTS.md lacks %q", want)
		}
	}
	if name, _, _ := tb.bestPeer(); name != "nethttp" {
		t.Errorf("best Go peer %q: a C row must not be a peer", name)
	}
}
