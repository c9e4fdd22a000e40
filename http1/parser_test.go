package http1

import (
	"reflect"
	"strings"
	"testing"
)

type goodCase struct {
	name string
	lim  Limits
	in   string
	want []snapshot // one per request, in order
}

func hf(kv ...string) []HeaderField {
	var out []HeaderField
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, HeaderField{kv[i], kv[i+1]})
	}
	return out
}

// get11 is the snapshot of a body-less HTTP/1.1 request.
func get11(method, target, path, query, host string, headers ...string) snapshot {
	return snapshot{Method: method, Target: target, Path: path, RawQuery: query,
		ProtoMajor: 1, ProtoMinor: 1, Host: host, Headers: hf(headers...), KeepAlive: true}
}

func with(s snapshot, f func(*snapshot)) snapshot { f(&s); return s }

var goodCases = []goodCase{
	{name: "simple GET", in: "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n",
		want: []snapshot{get11("GET", "/", "/", "", "example.com", "Host", "example.com")}},
	{name: "wrk GET", in: "GET /index.html HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: wrk/4.2\r\nAccept: */*\r\n\r\n",
		want: []snapshot{get11("GET", "/index.html", "/index.html", "", "localhost:8080",
			"Host", "localhost:8080", "User-Agent", "wrk/4.2", "Accept", "*/*")}},
	{name: "query", in: "GET /search?q=go&x=1?2 HTTP/1.1\r\nHost: a\r\n\r\n",
		want: []snapshot{get11("GET", "/search?q=go&x=1?2", "/search", "q=go&x=1?2", "a", "Host", "a")}},
	{name: "empty query", in: "GET /a? HTTP/1.1\r\nHost: a\r\n\r\n",
		want: []snapshot{get11("GET", "/a?", "/a", "", "a", "Host", "a")}},
	{name: "HEAD", in: "HEAD /x HTTP/1.1\r\nHost: a\r\n\r\n",
		want: []snapshot{get11("HEAD", "/x", "/x", "", "a", "Host", "a")}},
	{name: "extension method", in: "M-SEARCH /x HTTP/1.1\r\nHost: a\r\n\r\n",
		want: []snapshot{get11("M-SEARCH", "/x", "/x", "", "a", "Host", "a")}},
	{name: "names as sent, OWS trimmed, obs-text and HTAB kept",
		in: "GET / HTTP/1.1\r\nhOsT:\t a \t\r\nX-Empty:\r\nX-Obs: caf\xc3\xa9\r\nX-Tab: a\tb\r\nX-Sp:   \r\n\r\n",
		want: []snapshot{get11("GET", "/", "/", "", "a",
			"hOsT", "a", "X-Empty", "", "X-Obs", "caf\xc3\xa9", "X-Tab", "a\tb", "X-Sp", "")}},
	{name: "POST with Content-Length",
		in: "POST /form HTTP/1.1\r\nHost: a\r\nContent-Length: 11\r\n\r\nhello world",
		want: []snapshot{with(get11("POST", "/form", "/form", "", "a", "Host", "a", "Content-Length", "11"),
			func(s *snapshot) { s.ContentLength, s.Body, s.HasBody = 11, "hello world", true })}},
	{name: "Content-Length list and repeat",
		in: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 3 , 3\r\ncontent-length: 3\r\n\r\nabc",
		want: []snapshot{with(get11("POST", "/", "/", "", "a", "Host", "a", "Content-Length", "3 , 3", "content-length", "3"),
			func(s *snapshot) { s.ContentLength, s.Body, s.HasBody = 3, "abc", true })}},
	{name: "Content-Length zero", in: "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 000\r\n\r\n",
		want: []snapshot{get11("POST", "/", "/", "", "a", "Host", "a", "Content-Length", "000")}},
	{name: "chunked with extensions and trailers",
		in: "POST /up HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"5;name=val\r\nhello\r\n" +
			"6 ; a = \"q\\\"x;\" ; b\t;c=d\r\n world\r\n" +
			"000A\r\n0123456789\r\n" +
			"0;last\r\nX-Sum: abc\r\nX-Two:  2 \r\n\r\n",
		want: []snapshot{with(get11("POST", "/up", "/up", "", "a", "Host", "a", "Transfer-Encoding", "chunked"),
			func(s *snapshot) {
				s.ContentLength, s.Chunked, s.Body, s.HasBody = -1, true, "hello world0123456789", true
				s.Trailers = hf("X-Sum", "abc", "X-Two", "2")
			})}},
	{name: "chunked empty body, coding case-insensitive, empty list elements",
		in: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: , CHUNKED\r\n\r\n0\r\n\r\n",
		want: []snapshot{with(get11("POST", "/", "/", "", "a", "Host", "a", "Transfer-Encoding", ", CHUNKED"),
			func(s *snapshot) { s.ContentLength, s.Chunked = -1, true })}},
	{name: "pipelined", in: "GET /1 HTTP/1.1\r\nHost: a\r\n\r\n" +
		"POST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nhi" +
		"POST /3 HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n" +
		"\r\nGET /4 HTTP/1.0\r\n\r\n",
		want: []snapshot{
			get11("GET", "/1", "/1", "", "a", "Host", "a"),
			with(get11("POST", "/2", "/2", "", "a", "Host", "a", "Content-Length", "2"),
				func(s *snapshot) { s.ContentLength, s.Body, s.HasBody = 2, "hi", true }),
			with(get11("POST", "/3", "/3", "", "a", "Host", "a", "Transfer-Encoding", "chunked"),
				func(s *snapshot) { s.ContentLength, s.Chunked, s.Body, s.HasBody = -1, true, "ok", true }),
			with(get11("GET", "/4", "/4", "", ""), func(s *snapshot) { s.ProtoMinor, s.KeepAlive = 0, false }),
		}},
	{name: "1.0 without Host closes", in: "GET / HTTP/1.0\r\n\r\n",
		want: []snapshot{with(get11("GET", "/", "/", "", ""), func(s *snapshot) { s.ProtoMinor, s.KeepAlive = 0, false })}},
	{name: "1.0 keep-alive", in: "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
		want: []snapshot{with(get11("GET", "/", "/", "", "", "Connection", "Keep-Alive"), func(s *snapshot) { s.ProtoMinor = 0 })}},
	{name: "1.0 keep-alive and close", in: "GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n",
		want: []snapshot{with(get11("GET", "/", "/", "", "", "Connection", "keep-alive, close"),
			func(s *snapshot) { s.ProtoMinor, s.KeepAlive = 0, false })}},
	{name: "1.1 close", in: "GET / HTTP/1.1\r\nHost: a\r\nConnection: Upgrade , CLOSE\r\n\r\n",
		want: []snapshot{with(get11("GET", "/", "/", "", "a", "Host", "a", "Connection", "Upgrade , CLOSE"),
			func(s *snapshot) { s.KeepAlive = false })}},
	{name: "1.2 is treated as 1.1", in: "GET / HTTP/1.2\r\nHost: a\r\n\r\n",
		want: []snapshot{get11("GET", "/", "/", "", "a", "Host", "a")}},
	{name: "Expect 100-continue", in: "PUT /f HTTP/1.1\r\nHost: a\r\nExpect: 100-Continue\r\nContent-Length: 1\r\n\r\nx",
		want: []snapshot{with(get11("PUT", "/f", "/f", "", "a", "Host", "a", "Expect", "100-Continue", "Content-Length", "1"),
			func(s *snapshot) { s.ContentLength, s.Expect100, s.Body, s.HasBody = 1, true, "x", true })}},
	{name: "Expect 100-continue chunked", in: "PUT /f HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
		want: []snapshot{with(get11("PUT", "/f", "/f", "", "a", "Host", "a", "Expect", "100-continue", "Transfer-Encoding", "chunked"),
			func(s *snapshot) { s.ContentLength, s.Chunked, s.Expect100 = -1, true, true })}},
	{name: "Expect without body", in: "GET / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n\r\n",
		want: []snapshot{get11("GET", "/", "/", "", "a", "Host", "a", "Expect", "100-continue")}},
	{name: "Expect on 1.0 is ignored", in: "POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx",
		want: []snapshot{with(get11("POST", "/", "/", "", "", "Expect", "100-continue", "Content-Length", "1"),
			func(s *snapshot) {
				s.ProtoMinor, s.KeepAlive, s.ContentLength, s.Body, s.HasBody = 0, false, 1, "x", true
			})}},
	{name: "absolute-form", in: "GET http://Example.com:8080/p/q?x=1 HTTP/1.1\r\nHost: other\r\n\r\n",
		want: []snapshot{get11("GET", "http://Example.com:8080/p/q?x=1", "/p/q", "x=1", "Example.com:8080", "Host", "other")}},
	{name: "absolute-form without path", in: "GET HTTPS://a.b?x HTTP/1.1\r\nHost: a.b\r\n\r\n",
		want: []snapshot{get11("GET", "HTTPS://a.b?x", "/", "x", "a.b", "Host", "a.b")}},
	{name: "absolute-form bare", in: "GET http://[::1]:80 HTTP/1.1\r\nHost: [::1]:80\r\n\r\n",
		want: []snapshot{get11("GET", "http://[::1]:80", "/", "", "[::1]:80", "Host", "[::1]:80")}},
	{name: "OPTIONS *", in: "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
		want: []snapshot{get11("OPTIONS", "*", "*", "", "a", "Host", "a")}},
	{name: "empty Host", in: "GET / HTTP/1.1\r\nHost:\r\n\r\n",
		want: []snapshot{get11("GET", "/", "/", "", "", "Host", "")}},
	{name: "leading empty lines", in: "\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n",
		want: []snapshot{get11("GET", "/", "/", "", "a", "Host", "a")}},
	{name: "visible ASCII target", in: "GET /a|b{c}^`\"<>\\[]%zz#f HTTP/1.1\r\nHost: a\r\n\r\n",
		want: []snapshot{get11("GET", "/a|b{c}^`\"<>\\[]%zz#f", "/a|b{c}^`\"<>\\[]%zz#f", "", "a", "Host", "a")}},
	{name: "limits reached exactly", lim: Limits{MaxTargetBytes: 4, MaxHeaderBytes: 50, MaxHeaderCount: 2, MaxBodyBytes: 3},
		// 20 + 9 + 19 + 2 = 50 bytes of head.
		in: "POST /abc HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nxyz",
		want: []snapshot{with(get11("POST", "/abc", "/abc", "", "a", "Host", "a", "Content-Length", "3"),
			func(s *snapshot) { s.ContentLength, s.Body, s.HasBody = 3, "xyz", true })}},
	{name: "chunked limits reached exactly", lim: Limits{MaxHeaderBytes: 64, MaxHeaderCount: 2, MaxBodyBytes: 5},
		in: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
			"2\r\nab\r\n3\r\ncde\r\n0\r\nA: 1\r\nB: 2\r\n\r\n",
		want: []snapshot{with(get11("POST", "/", "/", "", "a", "Host", "a", "Transfer-Encoding", "chunked"),
			func(s *snapshot) {
				s.ContentLength, s.Chunked, s.Body, s.HasBody = -1, true, "abcde", true
				s.Trailers = hf("A", "1", "B", "2")
			})}},
}

func TestParseGood(t *testing.T) {
	for _, tc := range goodCases {
		t.Run(tc.name, func(t *testing.T) {
			o := drive(t, tc.lim, []byte(tc.in))
			if o.Err != nil {
				t.Fatalf("error %d %q", o.Err.Status, o.Err.Reason)
			}
			if o.Consumed != len(tc.in) || o.Pending {
				t.Fatalf("consumed %d of %d, pending %v", o.Consumed, len(tc.in), o.Pending)
			}
			if !reflect.DeepEqual(o.Reqs, tc.want) {
				t.Fatalf("got\n%+v\nwant\n%+v", o.Reqs, tc.want)
			}
			// A HeadComplete precedes each request with a body, and holds
			// the same head.
			h := 0
			for i, r := range o.Reqs {
				if r.ContentLength == 0 {
					continue
				}
				head := r
				head.Body, head.HasBody, head.Trailers = "", false, nil
				if h >= len(o.Heads) || !reflect.DeepEqual(o.Heads[h], head) {
					t.Fatalf("request %d: head snapshot mismatch", i)
				}
				h++
			}
			if h != len(o.Heads) {
				t.Fatalf("%d HeadComplete events for %d bodies", len(o.Heads), h)
			}
		})
	}
}

// TestParseSteps checks the n and events of individual calls.
func TestParseSteps(t *testing.T) {
	head := "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\n"
	in := []byte(head + "hello" + "GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	var p Parser
	var r Request
	n, ev, err := p.Parse(&r, in)
	if err != nil || ev != HeadComplete || n != len(head) {
		t.Fatalf("head: n=%d ev=%v err=%v", n, ev, err)
	}
	if r.Body != nil || r.ContentLength != 5 {
		t.Fatalf("after head: Body=%q CL=%d", r.Body, r.ContentLength)
	}
	in = in[n:]
	n, ev, err = p.Parse(&r, in[:2])
	if err != nil || ev != NeedMore || n != 2 {
		t.Fatalf("body part: n=%d ev=%v err=%v", n, ev, err)
	}
	in = in[n:]
	n, ev, err = p.Parse(&r, in)
	if err != nil || ev != MessageComplete || n != 3 || string(r.Body) != "hello" {
		t.Fatalf("body end: n=%d ev=%v err=%v body=%q", n, ev, err, r.Body)
	}
	in = in[n:]
	r.Reset()
	n, ev, err = p.Parse(&r, in)
	if err != nil || ev != MessageComplete || n != len(in) || r.Method != "GET" {
		t.Fatalf("second: n=%d ev=%v err=%v", n, ev, err)
	}
	if n, ev, err = p.Parse(&r, nil); n != 0 || ev != NeedMore || err != nil {
		t.Fatalf("empty input: n=%d ev=%v err=%v", n, ev, err)
	}
}

func TestBufferedAndReset(t *testing.T) {
	var p Parser
	var r Request
	part := "GET /x HTTP/1.1\r\nHost: a\r\n"
	n, ev, err := p.Parse(&r, []byte(part))
	if err != nil || ev != NeedMore || n != len(part) {
		t.Fatalf("n=%d ev=%v err=%v", n, ev, err)
	}
	if p.Buffered() != len(part) {
		t.Fatalf("Buffered = %d, want %d", p.Buffered(), len(part))
	}
	p.Reset()
	if p.Buffered() != 0 {
		t.Fatalf("Buffered after Reset = %d", p.Buffered())
	}
	// A new connection starts clean, even after a failure.
	if _, _, err := p.Parse(&r, []byte("BAD\x00")); err == nil {
		t.Fatal("want error")
	}
	p.Reset()
	if _, ev, err := p.Parse(&r, []byte("GET / HTTP/1.1\r\nHost: b\r\n\r\n")); err != nil || ev != MessageComplete || r.Host != "b" {
		t.Fatalf("after Reset: ev=%v err=%v host=%q", ev, err, r.Host)
	}
}

func TestRequestHeader(t *testing.T) {
	o := drive(t, Limits{}, []byte("GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nx-a: 2\r\n\r\n"))
	if o.Err != nil || len(o.Reqs) != 1 {
		t.Fatal(o)
	}
	var p Parser
	var r Request
	if _, _, err := p.Parse(&r, []byte("GET / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nx-a: 2\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"x-A": "1", "HOST": "a", "X-B": "", "X-A ": ""} {
		if got := r.Header(name); got != want {
			t.Errorf("Header(%q) = %q, want %q", name, got, want)
		}
	}
	r.Reset()
	if r.Header("Host") != "" || r.Method != "" || r.Headers != nil || r.Body != nil {
		t.Fatalf("Reset left %+v", r)
	}
}

// TestMethodsInterned checks that common methods survive Reset (they are
// constants) while the Request's other strings are reused memory.
func TestMethodsInterned(t *testing.T) {
	var p Parser
	var r Request
	if _, _, err := p.Parse(&r, []byte("DELETE /a HTTP/1.1\r\nHost: a\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	m := r.Method
	r.Reset()
	if _, _, err := p.Parse(&r, []byte("PATCH /b HTTP/1.1\r\nHost: a\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	if m != "DELETE" || r.Method != "PATCH" {
		t.Fatalf("methods %q %q", m, r.Method)
	}
}

// TestBodyOwned checks that Body and strings do not alias the input.
func TestBodyOwned(t *testing.T) {
	in := []byte("POST /p HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc")
	var p Parser
	var r Request
	n, ev, err := p.Parse(&r, in)
	if err != nil || ev != HeadComplete {
		t.Fatal(ev, err)
	}
	if _, ev, err = p.Parse(&r, in[n:]); err != nil || ev != MessageComplete {
		t.Fatal(ev, err)
	}
	for i := range in {
		in[i] = 'z'
	}
	if r.Path != "/p" || r.Host != "a" || string(r.Body) != "abc" || r.Headers[1].Value != "3" {
		t.Fatalf("request aliases input: %q %q %q", r.Path, r.Host, r.Body)
	}
}

func TestEventString(t *testing.T) {
	for ev, want := range map[Event]string{NeedMore: "NeedMore", HeadComplete: "HeadComplete", MessageComplete: "MessageComplete", 9: "Event(?)"} {
		if ev.String() != want {
			t.Errorf("%d: %q", ev, ev.String())
		}
	}
}

func TestErrorString(t *testing.T) {
	e := &Error{Status: 431, Reason: "too many header fields"}
	if got := e.Error(); got != "http1: 431 too many header fields" || !strings.Contains(got, "431") {
		t.Fatal(got)
	}
}

// TestReuseWithoutReset parses several requests into one Request without
// calling Reset between them: each must come out complete and clean.
func TestReuseWithoutReset(t *testing.T) {
	in := []byte("POST /a?x=1 HTTP/1.1\r\nHost: a\r\nX-Long: 0123456789\r\nContent-Length: 3\r\n\r\nabc" +
		"PUT /b HTTP/1.1\r\nHost: b\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nz\r\n0\r\nT: 1\r\n\r\n" +
		"GET /c HTTP/1.0\r\n\r\n")
	var p Parser
	var r Request
	var got []snapshot
	for len(in) > 0 {
		n, ev, err := p.Parse(&r, in)
		if err != nil {
			t.Fatal(err)
		}
		in = in[n:]
		if ev == MessageComplete {
			got = append(got, snap(&r))
		}
	}
	want := []snapshot{
		with(get11("POST", "/a?x=1", "/a", "x=1", "a", "Host", "a", "X-Long", "0123456789", "Content-Length", "3"),
			func(s *snapshot) { s.ContentLength, s.Body, s.HasBody = 3, "abc", true }),
		with(get11("PUT", "/b", "/b", "", "b", "Host", "b", "Transfer-Encoding", "chunked"),
			func(s *snapshot) {
				s.ContentLength, s.Chunked, s.Body, s.HasBody, s.Trailers = -1, true, "z", true, hf("T", "1")
			}),
		with(get11("GET", "/c", "/c", "", ""), func(s *snapshot) { s.ProtoMinor, s.KeepAlive = 0, false }),
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", got, want)
	}
}

func TestIdle(t *testing.T) {
	var p Parser
	var r Request
	if !p.Idle() {
		t.Fatal("a new parser is not Idle")
	}
	steps := []struct {
		in   string
		idle bool
		what string
	}{
		{"\r\n", false, "after a leading CRLF"},
		{"GET / HTTP/1.1\r\nHost: a\r\n", false, "with half a head buffered"},
		{"\r\n", true, "after a complete GET"},
		{"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nab", false, "in the middle of a body"},
		{"cd", true, "after the body ended"},
	}
	for _, st := range steps {
		for in := []byte(st.in); len(in) > 0; {
			n, _, err := p.Parse(&r, in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", st.in, err)
			}
			in = in[n:]
		}
		if p.Idle() != st.idle {
			t.Fatalf("Idle() = %v %s, want %v", p.Idle(), st.what, st.idle)
		}
	}
	if _, _, err := p.Parse(&r, []byte("BAD\x00")); err == nil {
		t.Fatal("want error")
	}
	if p.Idle() {
		t.Fatal("Idle after a framing error")
	}
}
