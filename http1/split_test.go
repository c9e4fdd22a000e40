package http1

import "testing"

// TestSplitGood parses every good case split at every offset and byte by
// byte, and checks that the outcome equals the whole-buffer parse.
func TestSplitGood(t *testing.T) {
	for _, tc := range goodCases {
		t.Run(tc.name, func(t *testing.T) {
			if o := checkSplits(t, tc.lim, []byte(tc.in)); o.Err != nil || len(o.Reqs) != len(tc.want) {
				t.Fatalf("whole parse: %v", o)
			}
		})
	}
}

// TestSplitBad does the same for every bad case: the same error (status and
// reason) wherever the input is split.
func TestSplitBad(t *testing.T) {
	for _, tc := range badCases {
		t.Run(tc.name, func(t *testing.T) {
			o := checkSplits(t, tc.lim, []byte(tc.in))
			if tc.status != 0 && (o.Err == nil || o.Err.Status != tc.status) {
				t.Fatalf("whole parse: %v", o)
			}
		})
	}
}

// TestSplitPipelinedMix splits a stream mixing every good case, so that
// requests of all kinds follow each other on one connection.
func TestSplitPipelinedMix(t *testing.T) {
	var in []byte
	n := 0
	for _, tc := range goodCases {
		if tc.lim != (Limits{}) {
			continue
		}
		in = append(in, tc.in...)
		n += len(tc.want)
	}
	o := checkSplits(t, Limits{}, in)
	if o.Err != nil || len(o.Reqs) != n || o.Consumed != len(in) {
		t.Fatalf("got %d requests of %d: %v", len(o.Reqs), n, o.Err)
	}
}
