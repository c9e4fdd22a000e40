package parse

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/gwist/gwist/benchmarks/internal/stats"
)

// TLSBench is the JSON object tlsbench -json prints: one HTTPS connection
// per request (connect, handshake, GET, read, close), as many as it could.
type TLSBench struct {
	Addr    string `json:"addr"`
	Clients int    `json:"clients"`
	NoDelay bool   `json:"nodelay"`
	TLS12   bool   `json:"tls12"`
	Resume  bool   `json:"resume"`
	// Seconds is the measured wall time; Connections the connections that
	// completed without error; ConnsPerSec their ratio.
	Seconds     float64 `json:"seconds"`
	Connections int64   `json:"connections"`
	ConnsPerSec float64 `json:"conns_per_sec"`
	Resumed     int64   `json:"resumed"`
	// Connect is TCP connect; Handshake the TLS handshake after it; Request
	// from handshake done to the first response byte; Total the whole
	// connection from dial to the last response byte.
	Connect   stats.Percentiles `json:"connect"`
	Handshake stats.Percentiles `json:"handshake"`
	Request   stats.Percentiles `json:"request"`
	Total     stats.Percentiles `json:"total"`
	// Errors counts failed connections by kind (dial, handshake, write,
	// read, status, body); ErrorSample is one of the error messages.
	Errors      map[string]int64 `json:"errors"`
	ErrorSample string           `json:"error_sample,omitempty"`
	// Silent describes the silent connections held during the run
	// (tlsbench -silent); nil without them.
	Silent *Silent `json:"silent,omitempty"`
}

// Silent is what became of tlsbench's silent connections: each sent a
// ClientHello, read the server's reply and sent nothing more.
type Silent struct {
	Requested int64 `json:"requested"`
	Failed    int64 `json:"failed"`   // dial or write failed
	NoReply   int64 `json:"no_reply"` // no byte from the server within -silent-wait
	// ClosedBefore counts those the server had closed when the measured
	// run began, ClosedDuring those it closed during the run.
	ClosedBefore int64 `json:"closed_before"`
	ClosedDuring int64 `json:"closed_during"`
}

// RateBench is the JSON object ratebench -json prints: an open-loop run at
// a fixed request rate over keep-alive connections.
type RateBench struct {
	Addr  string  `json:"addr"`
	Path  string  `json:"path"`
	Rate  float64 `json:"rate"`
	Conns int     `json:"conns"`
	// Seconds is the measured wall time; Completed the responses read;
	// Achieved their rate. Latency is measured from each request's
	// scheduled send time, so a stalled server is not hidden
	// (no coordinated omission).
	Seconds   float64           `json:"seconds"`
	Completed int64             `json:"completed"`
	Achieved  float64           `json:"achieved_rate"`
	Latency   stats.Percentiles `json:"latency"`
	Errors    map[string]int64  `json:"errors"`
}

// Idle is the JSON line idleconns prints once its connections are open.
type Idle struct {
	Addr      string           `json:"addr"`
	TLS       bool             `json:"tls"`
	Requested int              `json:"requested"`
	Open      int              `json:"open"`
	Seconds   float64          `json:"seconds"`
	Errors    map[string]int64 `json:"errors"`
}

// ErrorCount is the total of Errors.
func (t TLSBench) ErrorCount() int64 { return sum(t.Errors) }

// ErrorCount is the total of Errors.
func (r RateBench) ErrorCount() int64 { return sum(r.Errors) }

// ParseTLSBench decodes tlsbench -json output (the last JSON object in out).
func ParseTLSBench(out []byte) (TLSBench, error) {
	var t TLSBench
	return t, lastJSON(out, &t, "tlsbench")
}

// ParseRateBench decodes ratebench -json output (the last JSON object in out).
func ParseRateBench(out []byte) (RateBench, error) {
	var r RateBench
	return r, lastJSON(out, &r, "ratebench")
}

// ParseIdle decodes one JSON line of idleconns.
func ParseIdle(line []byte) (Idle, error) {
	var i Idle
	return i, lastJSON(line, &i, "idleconns")
}

// lastJSON decodes the last line of out that starts with '{' into v.
func lastJSON(out []byte, v any, tool string) error {
	var last []byte
	for _, l := range bytes.Split(out, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) > 0 && l[0] == '{' {
			last = l
		}
	}
	if last == nil {
		return fmt.Errorf("parse: %s printed no JSON: %q", tool, summary(string(out)))
	}
	if err := json.Unmarshal(last, v); err != nil {
		return fmt.Errorf("parse: %s: %w", tool, err)
	}
	return nil
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}
