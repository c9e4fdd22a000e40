package http1

import (
	"bytes"
	"testing"
)

// fuzzLimits picks limits for a fuzz input: the defaults, or tiny ones so
// that short inputs reach every limit.
func fuzzLimits(sel uint8) Limits {
	if sel%2 == 0 {
		return Limits{}
	}
	return Limits{MaxTargetBytes: 16, MaxHeaderBytes: 96, MaxHeaderCount: 4, MaxBodyBytes: 40}
}

// FuzzParse feeds arbitrary bytes whole, split at two fuzzer-chosen points,
// and (when short) byte by byte. drive checks the API invariants (n within
// buf, NeedMore consumes all, errors sticky and *Error, bounded buffering);
// the splits must give the whole-buffer outcome. It must never panic.
func FuzzParse(f *testing.F) {
	for _, tc := range goodCases {
		f.Add([]byte(tc.in), uint16(len(tc.in)/3), uint16(len(tc.in)/2), uint8(0))
	}
	for _, tc := range badCases {
		if len(tc.in) < 1024 {
			f.Add([]byte(tc.in), uint16(len(tc.in)/3), uint16(len(tc.in)/2), uint8(0))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, c1, c2 uint16, sel uint8) {
		lim := fuzzLimits(sel)
		whole := drive(t, lim, in)
		if len(in) > 0 {
			a, b := int(c1)%(len(in)+1), int(c2)%(len(in)+1)
			if a > b {
				a, b = b, a
			}
			if got := drive(t, lim, in[:a], in[a:b], in[b:]); !same(got, whole) {
				t.Fatalf("split %d,%d:\n got %v\nwant %v", a, b, got, whole)
			}
		}
		if len(in) <= 512 {
			pieces := make([][]byte, len(in))
			for i := range in {
				pieces[i] = in[i : i+1]
			}
			if got := drive(t, lim, pieces...); !same(got, whole) {
				t.Fatalf("byte by byte:\n got %v\nwant %v", got, whole)
			}
		}
		for _, r := range whole.Reqs {
			if int64(len(r.Body)) > lim.MaxBody() || len(r.Target) > lim.maxTarget() {
				t.Fatalf("limit exceeded: body %d target %d", len(r.Body), len(r.Target))
			}
		}
		checkStreamed(t, lim, in, int(c1), whole)
	})
}

// checkStreamed checks streamed bodies on a fuzz input: with the buffered
// limit they give the buffered outcome (whole and split at cut); with
// DeferBodyLimit, buffered (BufferBody) and streamed agree; with a limit of
// the fuzzer's choosing, split or not, the outcome is the same and no more
// than the limit is ever handed out (driveMode checks that).
func checkStreamed(t *testing.T, lim Limits, in []byte, cut int, whole outcome) {
	t.Helper()
	k := 0
	if len(in) > 0 {
		k = cut % (len(in) + 1)
	}
	m := bodyMode{stream: true, max: lim.MaxBody()}
	for _, got := range []outcome{driveMode(t, lim, m, in), driveMode(t, lim, m, in[:k], in[k:])} {
		if !same(got, whole) {
			t.Fatalf("streamed, split at %d:\n got %v\nwant %v", k, got, whole)
		}
	}
	def := driveMode(t, lim, bodyMode{deferLimit: true}, in)
	m.deferLimit = true
	if got := driveMode(t, lim, m, in[:k], in[k:]); !same(got, def) {
		t.Fatalf("deferred limit, streamed, split at %d:\n got %v\nwant %v", k, got, def)
	}
	m.max = int64(cut % 64)
	a, b := driveMode(t, lim, m, in), driveMode(t, lim, m, in[:k], in[k:])
	if !same(a, b) {
		t.Fatalf("streamed with limit %d, split at %d:\n got %v\nwant %v", m.max, k, b, a)
	}
}

// FuzzChunked checks the chunked decoder: arbitrary bytes after a chunked
// head must parse the same however split, and any payload encoded with
// AppendChunk (in fuzzer-chosen pieces) must decode to itself.
func FuzzChunked(f *testing.F) {
	f.Add([]byte("5\r\nhello\r\n0\r\n\r\n"), uint16(3))
	f.Add([]byte("a;x=y;z=\"q\\\"\"\r\n0123456789\r\n0\r\nT: v\r\n\r\n"), uint16(7))
	f.Add([]byte("0\r\n\r\n"), uint16(0))
	f.Add([]byte("ffffffff\r\n"), uint16(1))
	f.Add([]byte("1 ; a = b\r\nx\r\n0\r\n\r\n"), uint16(9))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16) {
		head := []byte("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
		in := append(append([]byte{}, head...), data...)
		whole := drive(t, Limits{}, in)
		k := len(head) + int(cut)%(len(data)+1)
		if got := drive(t, Limits{}, in[:k], in[k:]); !same(got, whole) {
			t.Fatalf("split at %d:\n got %v\nwant %v", k, got, whole)
		}

		// Round trip: data as the payload, cut into pieces of varying size.
		enc := append([]byte{}, head...)
		step := int(cut)%17 + 1
		for rest := data; len(rest) > 0; {
			n := min(step, len(rest))
			enc = AppendChunk(enc, rest[:n])
			rest = rest[n:]
			step = step*3%23 + 1
		}
		enc = AppendLastChunk(enc, []HeaderField{{"X-N", "1"}})
		o := drive(t, Limits{}, enc)
		if o.Err != nil || len(o.Reqs) != 1 || !bytes.Equal([]byte(o.Reqs[0].Body), data) {
			t.Fatalf("round trip of %q: %v", data, o)
		}
		// Streamed, the round trip and the split arbitrary input agree too.
		s := bodyMode{stream: true}
		if got := driveMode(t, Limits{}, s, enc[:k], enc[k:]); !same(got, o) {
			t.Fatalf("streamed round trip of %q:\n got %v\nwant %v", data, got, o)
		}
		if got := driveMode(t, Limits{}, bodyMode{stream: true, max: DefaultMaxBodyBytes}, in[:k], in[k:]); !same(got, whole) {
			t.Fatalf("streamed, split at %d:\n got %v\nwant %v", k, got, whole)
		}
	})
}
