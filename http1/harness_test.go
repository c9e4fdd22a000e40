package http1

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// snapshot is a deep copy of a parsed Request (its strings point into the
// Request's memory, which is reused).
type snapshot struct {
	Method, Target, Path, RawQuery string
	ProtoMajor, ProtoMinor         int
	Host                           string
	Headers                        []HeaderField
	ContentLength                  int64
	Chunked, KeepAlive, Expect100  bool
	Body                           string
	HasBody                        bool
	Trailers                       []HeaderField
}

func cloneFields(fs []HeaderField) []HeaderField {
	if fs == nil {
		return nil
	}
	out := make([]HeaderField, len(fs))
	for i, f := range fs {
		out[i] = HeaderField{strings.Clone(f.Name), strings.Clone(f.Value)}
	}
	return out
}

func snap(r *Request) snapshot {
	return snapshot{
		Method: strings.Clone(r.Method), Target: strings.Clone(r.Target),
		Path: strings.Clone(r.Path), RawQuery: strings.Clone(r.RawQuery),
		ProtoMajor: r.ProtoMajor, ProtoMinor: r.ProtoMinor,
		Host:    strings.Clone(r.Host),
		Headers: cloneFields(r.Headers), ContentLength: r.ContentLength,
		Chunked: r.Chunked, KeepAlive: r.KeepAlive, Expect100: r.Expect100,
		Body: string(r.Body), HasBody: r.Body != nil,
		Trailers: cloneFields(r.Trailers),
	}
}

// outcome is everything a stream of bytes produced.
type outcome struct {
	Events   []Event
	Heads    []snapshot // at HeadComplete
	Reqs     []snapshot // at MessageComplete
	Err      *Error     // nil, or a copy of the error
	Consumed int        // total bytes used (compared only without error)
	Pending  bool       // a request was in progress at the end
}

func (o outcome) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "events=%v consumed=%d pending=%v", o.Events, o.Consumed, o.Pending)
	if o.Err != nil {
		fmt.Fprintf(&b, " err=%d %q", o.Err.Status, o.Err.Reason)
	}
	for _, r := range o.Reqs {
		fmt.Fprintf(&b, "\n  %+v", r)
	}
	return b.String()
}

// same reports whether two outcomes are equal (Consumed and Pending only
// when neither failed: after an error the bytes used before it depend on the
// split).
func same(a, b outcome) bool {
	if (a.Err == nil) != (b.Err == nil) {
		return false
	}
	if a.Err != nil {
		if *a.Err != *b.Err {
			return false
		}
		a.Consumed, b.Consumed = 0, 0
		a.Pending, b.Pending = false, false
	}
	return reflect.DeepEqual(a, b)
}

// bodyMode says how drive takes bodies: buffered (the zero value), or
// streamed with StreamBody(max) at every HeadComplete; deferLimit sets
// DeferBodyLimit (buffered bodies then call BufferBody at HeadComplete).
type bodyMode struct {
	stream     bool
	max        int64
	deferLimit bool
}

// drive feeds chunks to a fresh parser the way the engine does: it keeps
// unconsumed bytes, calls Parse until it needs more, and starts each request
// on a reused Request. It checks the API's invariants as it goes.
func drive(t testing.TB, lim Limits, chunks ...[]byte) outcome {
	t.Helper()
	return driveMode(t, lim, bodyMode{}, chunks...)
}

// driveMode is drive with bodies taken as m says. A streamed body is
// collected from Data into the snapshot's Body, and BodyData events are
// not recorded, so its outcome compares equal to the buffered one.
func driveMode(t testing.TB, lim Limits, m bodyMode, chunks ...[]byte) outcome {
	t.Helper()
	p := &Parser{Limits: lim, DeferBodyLimit: m.deferLimit}
	req := new(Request)
	var o outcome
	var pend, streamed []byte
	fail := func(err error) outcome {
		pe, ok := err.(*Error)
		if !ok {
			t.Fatalf("error %T is not *Error", err)
		}
		cp := *pe
		o.Err = &cp
		return o
	}
	for _, c := range chunks {
		pend = append(pend, c...)
		for len(pend) > 0 {
			n, ev, err := p.Parse(req, pend)
			if n < 0 || n > len(pend) {
				t.Fatalf("Parse used %d of %d bytes", n, len(pend))
			}
			if b := p.Buffered(); b > lim.maxHeader() {
				t.Fatalf("Buffered() = %d > MaxHeaderBytes %d", b, lim.maxHeader())
			}
			if err != nil {
				pe, ok := err.(*Error)
				if !ok {
					t.Fatalf("error %T is not *Error", err)
				}
				if n != 0 || ev != NeedMore {
					t.Fatalf("on error: n=%d ev=%v, want 0 NeedMore", n, ev)
				}
				cp := *pe
				o.Err = &cp
				// Sticky: the same error, whatever comes next.
				n2, ev2, err2 := p.Parse(req, []byte("GET / HTTP/1.1\r\nHost: a\r\n\r\n"))
				if err2 != err || n2 != 0 || ev2 != NeedMore || *pe != cp {
					t.Fatalf("error not sticky: %v %d %v, first %v", err2, n2, ev2, err)
				}
				return o
			}
			o.Consumed += n
			if d := p.Data(); len(d) > 0 {
				if !m.stream || (ev != BodyData && ev != MessageComplete) {
					t.Fatalf("Data() = %d bytes after %v (stream %v)", len(d), ev, m.stream)
				}
				if !within(d, pend[:n]) {
					t.Fatalf("Data() is not within the bytes consumed")
				}
				streamed = append(streamed, d...)
			}
			pend = pend[n:]
			switch ev {
			case NeedMore:
				if len(pend) != 0 {
					t.Fatalf("NeedMore with %d bytes left", len(pend))
				}
				o.Pending = true
			case BodyData:
				if !m.stream || len(p.Data()) == 0 {
					t.Fatalf("BodyData with stream %v and %d bytes", m.stream, len(p.Data()))
				}
				if m.max > 0 && int64(len(streamed)) > m.max {
					t.Fatalf("streamed %d bytes over the limit %d", len(streamed), m.max)
				}
				o.Pending = true
			case HeadComplete:
				o.Events = append(o.Events, ev)
				o.Heads = append(o.Heads, snap(req))
				o.Pending = true
				var err error
				if m.stream {
					err = p.StreamBody(m.max)
				} else if m.deferLimit {
					err = p.BufferBody()
				}
				if err != nil {
					return fail(err)
				}
			case MessageComplete:
				o.Events = append(o.Events, ev)
				s := snap(req)
				if m.stream {
					if s.HasBody {
						t.Fatalf("a streamed body was stored in the Request")
					}
					s.Body, s.HasBody = string(streamed), len(streamed) > 0
					streamed = streamed[:0]
				}
				o.Reqs = append(o.Reqs, s)
				o.Pending = false
				req.Reset()
			default:
				t.Fatalf("bad event %v", ev)
			}
		}
	}
	return o
}

// within reports whether sub lies inside buf's memory.
func within(sub, buf []byte) bool {
	s, b := uintptr(unsafe.Pointer(unsafe.SliceData(sub))), uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	return s >= b && s+uintptr(len(sub)) <= b+uintptr(len(buf))
}

// checkSplits parses in whole, split at every offset, and byte by byte, and
// fails unless all agree. It returns the whole-buffer outcome.
func checkSplits(t testing.TB, lim Limits, in []byte) outcome {
	t.Helper()
	whole := drive(t, lim, in)
	for i := 1; i < len(in); i = nextSplit(i, len(in)) {
		if got := drive(t, lim, in[:i], in[i:]); !same(got, whole) {
			t.Fatalf("split at %d of %q:\n got %v\nwant %v", i, short(in), got, whole)
		}
	}
	bytewise := make([][]byte, len(in))
	for i := range in {
		bytewise[i] = in[i : i+1]
	}
	if got := drive(t, lim, bytewise...); !same(got, whole) {
		t.Fatalf("byte by byte %q:\n got %v\nwant %v", short(in), got, whole)
	}
	return whole
}

// nextSplit steps through split offsets: every one for inputs up to 2 KiB;
// for larger ones every offset near the ends and a stride in between.
func nextSplit(i, n int) int {
	if n <= 2048 || i < 64 || i >= n-64 {
		return i + 1
	}
	return min(i+7, n-64)
}

// short abbreviates long inputs in failure messages.
func short(b []byte) string {
	if len(b) <= 300 {
		return string(b)
	}
	return string(b[:200]) + fmt.Sprintf("...(%d bytes)...", len(b)-300) + string(b[len(b)-100:])
}
