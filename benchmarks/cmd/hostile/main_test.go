package main

import (
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/hostile"
)

func TestParseAttacks(t *testing.T) {
	if a, err := parseAttacks("all"); err != nil || len(a) != 4 {
		t.Fatalf("all: %v %v", a, err)
	}
	if a, err := parseAttacks("ping-flood, h2-stall"); err != nil || len(a) != 2 || a[1] != attackH2Stall {
		t.Fatalf("list: %v %v", a, err)
	}
	if _, err := parseAttacks("slowloris"); err == nil {
		t.Fatal("an unknown attack was accepted")
	}
}

func TestReportPrints(t *testing.T) {
	r := &report{Attacks: []string{attackH2Stall}, Target: "127.0.0.1:1", Duration: time.Second,
		RSS:     &hostile.RSSResult{Before: 10 << 20, Peak: 20 << 20, Recovered: true},
		Probe:   hostile.ProbeResult{Count: 3, OK: 2, Non200: 1, Statuses: map[int]int{200: 2, 503: 1}},
		H2Stall: &hostile.H2StallResult{Dialed: 1, Opened: 2, Outcomes: map[string]int{"open": 1, "status 503": 1}},
		Burst: &hostile.Burst{End: 3 * time.Second, Ended: true, During: hostile.Latencies{Count: 1, Max: 200 * time.Millisecond},
			After: hostile.Latencies{Count: 2, P99: 2 * time.Millisecond}}}
	var b strings.Builder
	r.print(&b)
	for _, want := range []string{"| RSS MB before / peak / end / after | 10.0 / 20.0", "1×503", "open 1, status 503 1",
		"| opening burst (server busy) | until 3s into", "| live GET in the burst: count, p50 / p99 / max | 1, 0s / 0s / 200ms |",
		"| live GET after the burst: count, p50 / p99 / max | 2, 0s / 2ms / 0s |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}

// A live client without a result says why instead of a table of zeros
// passing for one.
func TestReportPrintsProbeError(t *testing.T) {
	r := &report{Attacks: []string{attackPing}, Target: "127.0.0.1:1", ProbeError: "live client process gave no result (exit status 2)"}
	var b strings.Builder
	r.print(&b)
	if want := "| live GET: no result | live client process gave no result (exit status 2) |"; !strings.Contains(b.String(), want) {
		t.Errorf("no %q in\n%s", want, b.String())
	}
}
