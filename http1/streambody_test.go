package http1

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// checkStreamSplits parses in with streamed bodies, whole, split at every
// offset and byte by byte, and fails unless all agree with want.
func checkStreamSplits(t *testing.T, lim Limits, m bodyMode, in []byte, want outcome) {
	t.Helper()
	if got := driveMode(t, lim, m, in); !same(got, want) {
		t.Fatalf("whole %q:\n got %v\nwant %v", short(in), got, want)
	}
	for i := 1; i < len(in); i = nextSplit(i, len(in)) {
		if got := driveMode(t, lim, m, in[:i], in[i:]); !same(got, want) {
			t.Fatalf("split at %d of %q:\n got %v\nwant %v", i, short(in), got, want)
		}
	}
	bytewise := make([][]byte, len(in))
	for i := range in {
		bytewise[i] = in[i : i+1]
	}
	if got := driveMode(t, lim, m, bytewise...); !same(got, want) {
		t.Fatalf("byte by byte %q:\n got %v\nwant %v", short(in), got, want)
	}
}

// TestStreamMatchesBuffered: a body streamed with the buffered limit gives
// exactly what the buffered parser gives (body, trailers, errors, events
// but BodyData), for every good and bad case and however it is split.
func TestStreamMatchesBuffered(t *testing.T) {
	for _, tc := range goodCases {
		want := drive(t, Limits{}, []byte(tc.in))
		checkStreamSplits(t, Limits{}, bodyMode{stream: true, max: DefaultMaxBodyBytes}, []byte(tc.in), want)
	}
	for _, tc := range badCases {
		tc := tc
		want := drive(t, tc.lim, []byte(tc.in))
		checkStreamSplits(t, tc.lim, bodyMode{stream: true, max: tc.lim.MaxBody()}, []byte(tc.in), want)
		// DeferBodyLimit: buffered with BufferBody and streamed agree too.
		wantDef := driveMode(t, tc.lim, bodyMode{deferLimit: true}, []byte(tc.in))
		if (wantDef.Err == nil) != (want.Err == nil) || wantDef.Err != nil && *wantDef.Err != *want.Err {
			t.Fatalf("%s: deferred limit changed the outcome: %v, want %v", tc.name, wantDef, want)
		}
		checkStreamSplits(t, tc.lim, bodyMode{stream: true, max: tc.lim.MaxBody(), deferLimit: true}, []byte(tc.in), wantDef)
	}
}

func TestStreamBodyEvents(t *testing.T) {
	in := []byte("POST /u HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"5;x=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 42\r\n\r\n" +
		"GET /next HTTP/1.1\r\nHost: a\r\n\r\n")
	var p Parser
	var r, body Request
	n, ev, err := p.Parse(&r, in)
	if err != nil || ev != HeadComplete {
		t.Fatal(ev, err)
	}
	in = in[n:]
	if err := p.StreamBody(0); err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		n, ev, err = p.Parse(&body, in)
		if err != nil {
			t.Fatal(err)
		}
		if ev == BodyData && !within(p.Data(), in[:n]) {
			t.Fatal("Data is a copy")
		}
		got = append(got, ev.String()+":"+string(p.Data()))
		in = in[n:]
		if ev == MessageComplete {
			break
		}
	}
	if want := "BodyData:hello BodyData: world MessageComplete:"; strings.Join(got, " ") != want {
		t.Fatalf("events %q, want %q", strings.Join(got, " "), want)
	}
	if body.Body != nil || len(body.Trailers) != 1 || body.Trailers[0] != (HeaderField{"X-Sum", "42"}) {
		t.Fatalf("body %q trailers %v", body.Body, body.Trailers)
	}
	if r.Body != nil {
		t.Fatal("the head's Request got a body")
	}
	// The next request is buffered again.
	var next Request
	if _, ev, err = p.Parse(&next, in); err != nil || ev != MessageComplete || next.Path != "/next" {
		t.Fatal(ev, err, next.Path)
	}
}

func TestStreamBodyContentLengthLastData(t *testing.T) {
	in := []byte("PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\n0123456789")
	var p Parser
	var r Request
	n, _, _ := p.Parse(&r, in)
	if err := p.StreamBody(10); err != nil {
		t.Fatal(err)
	}
	_, ev, err := p.Parse(&r, in[n:n+4])
	if err != nil || ev != BodyData || string(p.Data()) != "0123" {
		t.Fatal(ev, err, string(p.Data()))
	}
	// The call that ends the body carries its last bytes.
	_, ev, err = p.Parse(&r, in[n+4:])
	if err != nil || ev != MessageComplete || string(p.Data()) != "456789" {
		t.Fatal(ev, err, string(p.Data()))
	}
	if _, _, _ = p.Parse(&r, nil); p.Data() != nil {
		t.Fatal("Data kept across calls")
	}
}

func TestStreamBodyLimits(t *testing.T) {
	small := Limits{MaxBodyBytes: 8}
	cl := func(n int) []byte {
		return []byte("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: " + itoa(n) + "\r\n\r\n" + strings.Repeat("x", n))
	}
	chunked := func(sizes ...int) []byte {
		b := []byte("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
		for _, n := range sizes {
			b = AppendChunk(b, bytes.Repeat([]byte("y"), n))
		}
		return AppendLastChunk(b, nil)
	}
	for _, tc := range []struct {
		name   string
		m      bodyMode
		in     []byte
		status int // 0: parses, with the whole body streamed
	}{
		{"no limit, long Content-Length", bodyMode{stream: true, deferLimit: true}, cl(100), 0},
		{"no limit, long chunked", bodyMode{stream: true, deferLimit: true}, chunked(50, 50), 0},
		{"own limit above the buffered one", bodyMode{stream: true, max: 100, deferLimit: true}, cl(100), 0},
		{"Content-Length over the stream's limit", bodyMode{stream: true, max: 99, deferLimit: true}, cl(100), 413},
		{"chunks over the stream's limit", bodyMode{stream: true, max: 99}, chunked(50, 50), 413},
		{"chunks at the stream's limit", bodyMode{stream: true, max: 100}, chunked(50, 50), 0},
		{"buffered, deferred check", bodyMode{deferLimit: true}, cl(9), 413},
		{"buffered, deferred, at the limit", bodyMode{deferLimit: true}, cl(8), 0},
		{"without DeferBodyLimit the head decides", bodyMode{stream: true}, cl(9), 413},
	} {
		o := driveMode(t, small, tc.m, tc.in)
		switch {
		case tc.status != 0 && (o.Err == nil || o.Err.Status != tc.status):
			t.Errorf("%s: %v, want %d", tc.name, o, tc.status)
		case tc.status == 0 && (o.Err != nil || len(o.Reqs) != 1 || strings.Trim(o.Reqs[0].Body, "xy") != ""):
			t.Errorf("%s: %v", tc.name, o)
		}
	}
}

func TestDeferredLimitWithoutBufferBody(t *testing.T) {
	p := Parser{Limits: Limits{MaxBodyBytes: 4}, DeferBodyLimit: true}
	var r Request
	in := []byte("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello")
	n, ev, err := p.Parse(&r, in)
	if err != nil || ev != HeadComplete || !r.Expect100 {
		t.Fatal(ev, err)
	}
	// A caller that goes on parsing gets the 413 before any body byte.
	if _, _, err := p.Parse(&r, in[n:]); err == nil || err.(*Error).Status != 413 || r.Body != nil {
		t.Fatalf("%v, body %q", err, r.Body)
	}
	p.Reset()
	if !p.DeferBodyLimit {
		t.Fatal("Reset dropped DeferBodyLimit")
	}
}

func TestStreamBodyNotAtBody(t *testing.T) {
	var p Parser
	var r Request
	if err := p.StreamBody(0); !errors.Is(err, ErrNotAtBody) {
		t.Fatal(err)
	}
	in := []byte("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n")
	n, _, _ := p.Parse(&r, in)
	if _, _, err := p.Parse(&r, in[n:]); err != nil {
		t.Fatal(err)
	}
	if err := p.StreamBody(0); !errors.Is(err, ErrNotAtBody) {
		t.Fatalf("StreamBody mid-body: %v", err)
	}
	if err := p.BufferBody(); err != nil {
		t.Fatal(err)
	}
}

// TestStreamBodyAllocs: streaming a body allocates nothing per request.
func TestStreamBodyAllocs(t *testing.T) {
	body := postChunked[bytes.Index(postChunked, []byte("\r\n\r\n"))+4:]
	in := append([]byte("PUT / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"), body...)
	in = append(in, "PUT / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello"...)
	var p Parser
	var r, req Request
	run := func() {
		for rest := in; len(rest) > 0; {
			r.Reset()
			n, ev, err := p.Parse(&r, rest)
			if err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
			if ev != HeadComplete {
				t.Fatal(ev)
			}
			if err := p.StreamBody(0); err != nil {
				t.Fatal(err)
			}
			for ev != MessageComplete {
				n, ev, err = p.Parse(&req, rest)
				if err != nil {
					t.Fatal(err)
				}
				rest = rest[n:]
			}
		}
	}
	run()
	if a := testing.AllocsPerRun(200, run); a != 0 {
		t.Errorf("%.1f allocs per run, want 0", a)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
