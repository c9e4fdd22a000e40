package parse

import (
	"os"
	"strings"
	"testing"
	"time"
)

func sample(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDuration(t *testing.T) {
	cases := map[string]time.Duration{
		"530.52us": 530520 * time.Nanosecond,
		"1.20ms":   1200 * time.Microsecond,
		"3.5s":     3500 * time.Millisecond,
		"2.00m":    2 * time.Minute,
		"52us":     52 * time.Microsecond,
		"944us":    944 * time.Microsecond,
	}
	for in, want := range cases {
		got, err := duration(in)
		if err != nil || got != want {
			t.Errorf("duration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "12", "x ms", "1.2parsecs"} {
		if _, err := duration(bad); err == nil {
			t.Errorf("duration(%q): want error", bad)
		}
	}
}

func TestParseWrkLatency(t *testing.T) {
	w, err := ParseWrk(sample(t, "wrk_latency.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if w.RequestsPerSec != 46610.84 || w.Requests != 46870 {
		t.Errorf("rps %v requests %v", w.RequestsPerSec, w.Requests)
	}
	if w.LatencyAvg != 1200*time.Microsecond || w.LatencyMax != 23620*time.Microsecond {
		t.Errorf("latency avg %v max %v", w.LatencyAvg, w.LatencyMax)
	}
	if w.P50 != 950*time.Microsecond || w.P75 != 1480*time.Microsecond ||
		w.P90 != 2310*time.Microsecond || w.P99 != 5470*time.Microsecond {
		t.Errorf("distribution %v %v %v %v", w.P50, w.P75, w.P90, w.P99)
	}
	if w.Errors() != 0 {
		t.Errorf("errors %d", w.Errors())
	}
}

func TestParseWrkErrors(t *testing.T) {
	w, err := ParseWrk(sample(t, "wrk_errors.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if w.ReadErrors != 12 || w.WriteErrors != 3 || w.Timeouts != 7 || w.ConnectErrors != 0 {
		t.Errorf("socket errors %+v", w)
	}
	if w.Errors() != 22 || w.P99 != 0 || w.LatencyMax != 1030*time.Millisecond {
		t.Errorf("errors %d p99 %v max %v", w.Errors(), w.P99, w.LatencyMax)
	}
	w, err = ParseWrk(sample(t, "wrk_non2xx.txt"))
	if err != nil || w.Non2xx != 40687 || w.Errors() != 40687 {
		t.Errorf("non2xx %d, %v", w.Non2xx, err)
	}
}

func TestParseWrkRefused(t *testing.T) {
	_, err := ParseWrk(sample(t, "wrk_refused.txt"))
	if err == nil || !strings.Contains(err.Error(), "Connection refused") {
		t.Fatalf("err = %v; want one quoting wrk's reason", err)
	}
}

func TestParseAB(t *testing.T) {
	a, err := ParseAB(sample(t, "ab_ok.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := AB{Complete: 300, Failed: 0, RequestsPerSec: 169.50, MeanMs: 47.199, P50Ms: 44, P99Ms: 53}
	if a != want {
		t.Errorf("got %+v, want %+v", a, want)
	}
	a, err = ParseAB(sample(t, "ab_failed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Failed != 150 || a.Complete != 300 || a.RequestsPerSec != 10022.05 {
		t.Errorf("failed run: %+v", a)
	}
	_, err = ParseAB("This is ApacheBench, Version 2.3\nBenchmarking 127.0.0.1 (be patient)\napr_socket_connect(): Connection refused (111)\n")
	if err == nil || !strings.Contains(err.Error(), "Connection refused") {
		t.Errorf("err = %v", err)
	}
	a, err = ParseAB("Complete requests: 10\nFailed requests: 0\nNon-2xx responses: 10\nRequests per second: 5.00 [#/sec] (mean)\n")
	if err != nil || a.Non2xx != 10 {
		t.Errorf("non-2xx: %+v %v", a, err)
	}
}

func TestParseH2load(t *testing.T) {
	h, err := ParseH2load(sample(t, "h2load_h2.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if h.RequestsPerSec != 17651.78 || h.Elapsed != 113300*time.Microsecond || h.Succeeded != 2000 ||
		h.Total != 2000 || h.Failed != 0 || h.Status2xx != 2000 || h.Protocol != "h2" || !h.SpokeH2() {
		t.Errorf("h2 run: %+v", h)
	}
	h, err = ParseH2load(sample(t, "h2load_fallback.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if h.Protocol != "http/1.1" || !h.FellBack || h.SpokeH2() || h.Succeeded != 2000 {
		t.Errorf("fallback run: %+v", h)
	}
	h, err = ParseH2load(sample(t, "h2load_h2c_refused.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if h.Protocol != "h2c" || h.Succeeded != 0 || h.Errored != 2000 || h.Started != 40 || h.SpokeH2() {
		t.Errorf("h2c against an HTTP/1.1 server: %+v", h)
	}
	h, err = ParseH2load(sample(t, "h2load_connrefused.txt"))
	if err != nil || h.Protocol != "" || h.SpokeH2() || h.RequestsPerSec != 0 {
		t.Errorf("refused: %+v %v", h, err)
	}
	if _, err := ParseH2load("starting benchmark...\n"); err == nil {
		t.Error("truncated output: want error")
	}
}

func TestParseTLSBench(t *testing.T) {
	out := []byte("warming up\n" +
		`{"addr":"127.0.0.1:8443","clients":8,"seconds":10.0,"connections":12000,"conns_per_sec":1200,` +
		`"handshake":{"count":12000,"p50_ms":1.5,"p99_ms":4},"errors":{"dial":2,"read":1}}` + "\n")
	r, err := ParseTLSBench(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Clients != 8 || r.ConnsPerSec != 1200 || r.Handshake.P99 != 4 || r.ErrorCount() != 3 {
		t.Errorf("got %+v", r)
	}
	if _, err := ParseTLSBench([]byte("tlsbench: dial: refused\n")); err == nil ||
		!strings.Contains(err.Error(), "refused") {
		t.Errorf("err = %v", err)
	}
	if _, err := ParseTLSBench([]byte("{broken")); err == nil {
		t.Error("broken JSON: want error")
	}
}

func TestParseRateBenchAndIdle(t *testing.T) {
	r, err := ParseRateBench([]byte(`{"rate":5000,"conns":16,"achieved_rate":4990.5,"latency":{"p999_ms":7.5},"errors":{}}`))
	if err != nil || r.Achieved != 4990.5 || r.Latency.P999 != 7.5 || r.ErrorCount() != 0 {
		t.Errorf("ratebench: %+v %v", r, err)
	}
	i, err := ParseIdle([]byte(`{"addr":"a","tls":true,"requested":5000,"open":4990,"errors":{"handshake":10}}`))
	if err != nil || !i.TLS || i.Open != 4990 || i.Errors["handshake"] != 10 {
		t.Errorf("idle: %+v %v", i, err)
	}
}
