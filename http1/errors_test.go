package http1

import (
	"strings"
	"testing"
)

type badCase struct {
	name   string
	lim    Limits
	in     string
	status int
	reason string // optional: the exact Reason
}

const (
	hostA = "Host: a\r\n"
	chunk = "Transfer-Encoding: chunked\r\n"
)

func post(body string) string { return "POST / HTTP/1.1\r\n" + hostA + chunk + "\r\n" + body }

var badCases = []badCase{
	// Request line.
	{name: "double space", in: "GET  / HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "space before version", in: "GET /  HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "trailing space", in: "GET / HTTP/1.1 \r\n" + hostA + "\r\n", status: 400},
	{name: "leading space", in: " GET / HTTP/1.1\r\n" + hostA + "\r\n", status: 400, reason: "empty method"},
	{name: "no version", in: "GET /\r\n" + hostA + "\r\n", status: 400, reason: "malformed request line"},
	{name: "no target", in: "GET\r\n\r\n", status: 400, reason: "invalid method"},
	{name: "extra part", in: "GET / HTTP/1.1 x\r\n" + hostA + "\r\n", status: 400},
	{name: "tab separator", in: "GET\t/ HTTP/1.1\r\n" + hostA + "\r\n", status: 400, reason: "invalid method"},
	{name: "bad method byte", in: "G@T / HTTP/1.1\r\n" + hostA + "\r\n", status: 400, reason: "invalid method"},
	{name: "TLS handshake", in: "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", status: 400, reason: "invalid method"},
	{name: "five leading empty lines", in: strings.Repeat("\r\n", 5) + "GET / HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "leading bare LF", in: "\nGET / HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "leading bare CR", in: "\r\rGET / HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "leading CR then method", in: "\rGET / HTTP/1.1\r\n" + hostA + "\r\n", status: 400},

	// Target.
	{name: "CTL in target", in: "GET /a\x01b HTTP/1.1\r\n" + hostA + "\r\n", status: 400, reason: "invalid request-target"},
	{name: "DEL in target", in: "GET /a\x7f HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "non-ASCII target", in: "GET /caf\xc3\xa9 HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "tab in target", in: "GET /a\tb HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "CR in target", in: "GET /a\rb HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "relative target", in: "GET a/b HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "asterisk with GET", in: "GET * HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "asterisk-ish", in: "OPTIONS *x HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "authority-form", in: "GET example.com:80 HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "CONNECT", in: "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", status: 501},
	{name: "other scheme", in: "GET ftp://a/ HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "scheme without slashes", in: "GET http:/a HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "empty authority", in: "GET http:///a HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "userinfo", in: "GET http://u:p@a/ HTTP/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "bad port in authority", in: "GET http://a:8x/ HTTP/1.1\r\n" + hostA + "\r\n", status: 400},

	// Version.
	{name: "HTTP/1.x", in: "GET / HTTP/1.x\r\n" + hostA + "\r\n", status: 400},
	{name: "lower-case http", in: "GET / http/1.1\r\n" + hostA + "\r\n", status: 400},
	{name: "HTTP/1.10", in: "GET / HTTP/1.10\r\n" + hostA + "\r\n", status: 400},
	{name: "HTTP/1", in: "GET / HTTP/1\r\n" + hostA + "\r\n", status: 400},
	{name: "HTTP/11", in: "GET / HTTP/11\r\n" + hostA + "\r\n", status: 400},
	{name: "HTTP/2.0", in: "GET / HTTP/2.0\r\n" + hostA + "\r\n", status: 505},
	{name: "HTTP/3.0", in: "GET / HTTP/3.0\r\n" + hostA + "\r\n", status: 505},
	{name: "HTTP/0.9", in: "GET / HTTP/0.9\r\n" + hostA + "\r\n", status: 505},
	{name: "h2 preface", in: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", status: 505},

	// Field lines.
	{name: "space before colon", in: "GET / HTTP/1.1\r\nHost : a\r\n\r\n", status: 400, reason: "whitespace between header name and colon"},
	{name: "space in name", in: "GET / HTTP/1.1\r\n" + hostA + "X Y: a\r\n\r\n", status: 400, reason: "invalid header name"},
	{name: "empty name", in: "GET / HTTP/1.1\r\n" + hostA + ": a\r\n\r\n", status: 400, reason: "empty header name"},
	{name: "no colon", in: "GET / HTTP/1.1\r\n" + hostA + "NoColon\r\n\r\n", status: 400, reason: "header line without colon"},
	{name: "non-ASCII name", in: "GET / HTTP/1.1\r\n" + hostA + "X-\xc3\xa9: a\r\n\r\n", status: 400},
	{name: "NUL in value", in: "GET / HTTP/1.1\r\n" + hostA + "X: a\x00b\r\n\r\n", status: 400, reason: "invalid header value"},
	{name: "ESC in value", in: "GET / HTTP/1.1\r\n" + hostA + "X: \x1b[0m\r\n\r\n", status: 400},
	{name: "DEL in value", in: "GET / HTTP/1.1\r\n" + hostA + "X: a\x7f\r\n\r\n", status: 400},
	{name: "DEL in long value", in: "GET / HTTP/1.1\r\n" + hostA + "X: 0123456789abcdef\x7f0123456789\r\n\r\n", status: 400},
	{name: "bare CR in value", in: "GET / HTTP/1.1\r\n" + hostA + "X: a\rY: b\r\n\r\n", status: 400},
	{name: "obs-fold SP", in: "GET / HTTP/1.1\r\n" + hostA + "X: a\r\n b\r\n\r\n", status: 400, reason: "obsolete line folding"},
	{name: "obs-fold HTAB", in: "GET / HTTP/1.1\r\n" + hostA + "X: a\r\n\tb\r\n\r\n", status: 400},
	{name: "fold as first line", in: "GET / HTTP/1.1\r\n " + hostA + "\r\n", status: 400},

	// CRLF.
	{name: "bare LF after request line", in: "GET / HTTP/1.1\n" + hostA + "\r\n", status: 400, reason: "line not terminated by CRLF"},
	{name: "bare LF after field", in: "GET / HTTP/1.1\r\nHost: a\n\r\n", status: 400},
	{name: "bare LF ending head", in: "GET / HTTP/1.1\r\n" + hostA + "\n", status: 400},
	{name: "bare LF only", in: "GET / HTTP/1.1\n\n", status: 400},
	{name: "CR CR LF ending head", in: "GET / HTTP/1.1\r\n" + hostA + "\r\r\n\r\n", status: 400},
	// A CR that starts a line and is not followed by LF is final at once,
	// not a wait for an LF that never comes (then a 408).
	{name: "bare CR ending head", in: "GET / HTTP/1.1\r\n" + hostA + "\rX", status: 400, reason: "bare CR"},
	{name: "bare CR after request line", in: "GET / HTTP/1.1\r\n\rX", status: 400, reason: "bare CR"},
	{name: "bare CR starting a field line", in: "GET / HTTP/1.1\r\n" + hostA + "\rX: a\r\n\r\n", status: 400, reason: "bare CR"},
	{name: "CR ending head, incomplete", in: "GET / HTTP/1.1\r\n" + hostA + "\r", status: 0},
	{name: "bare CR within head limit", lim: Limits{MaxHeaderBytes: 27}, in: "GET / HTTP/1.1\r\n" + hostA + "\rX", status: 400, reason: "bare CR"},
	{name: "head too large beats bare CR past it", lim: Limits{MaxHeaderBytes: 26}, in: "GET / HTTP/1.1\r\n" + hostA + "\rX", status: 431},

	// Host.
	{name: "missing Host", in: "GET / HTTP/1.1\r\n\r\n", status: 400, reason: "missing Host"},
	{name: "missing Host absolute-form", in: "GET http://a/ HTTP/1.1\r\n\r\n", status: 400, reason: "missing Host"},
	{name: "two Hosts", in: "GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", status: 400, reason: "more than one Host"},
	{name: "two Hosts on 1.0", in: "GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", status: 400},
	{name: "Host with space", in: "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", status: 400, reason: "invalid Host"},
	{name: "Host with path", in: "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", status: 400},
	{name: "Host with userinfo", in: "GET / HTTP/1.1\r\nHost: u@a\r\n\r\n", status: 400},
	{name: "Host bad port", in: "GET / HTTP/1.1\r\nHost: a:x\r\n\r\n", status: 400},
	{name: "Host only port", in: "GET / HTTP/1.1\r\nHost: :80\r\n\r\n", status: 400},
	{name: "Host unclosed bracket", in: "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", status: 400},

	// Content-Length.
	{name: "CL and TE", in: "POST / HTTP/1.1\r\n" + hostA + "Content-Length: 3\r\n" + chunk + "\r\n", status: 400, reason: "both Content-Length and Transfer-Encoding"},
	{name: "TE and CL", in: "POST / HTTP/1.1\r\n" + hostA + chunk + "Content-Length: 3\r\n\r\n", status: 400},
	{name: "CL list differs", in: "POST / HTTP/1.1\r\n" + hostA + "Content-Length: 5, 6\r\n\r\n", status: 400, reason: "conflicting Content-Length values"},
	{name: "CL fields differ", in: "POST / HTTP/1.1\r\n" + hostA + "Content-Length: 5\r\nContent-Length: 6\r\n\r\n", status: 400},
	{name: "CL negative", in: "POST / HTTP/1.1\r\n" + hostA + "Content-Length: -1\r\n\r\n", status: 400, reason: "invalid Content-Length"},
	{name: "CL plus", in: "POST / HTTP/1.1\r\n" + hostA + "Content-Length: +1\r\n\r\n", status: 400},
	{name: "CL empty", in: "POST / HTTP/1.1\r\n" + hostA + "Content-Length:\r\n\r\n", status: 400},
	{name: "CL empty element", in: "POST / HTTP/1.1\r\n" + hostA + "Content-Length: 1,\r\n\r\n", status: 400},
	{name: "CL hex", in: "POST / HTTP/1.1\r\n" + hostA + "Content-Length: 0x10\r\n\r\n", status: 400},
	{name: "CL inner space", in: "POST / HTTP/1.1\r\n" + hostA + "Content-Length: 1 2\r\n\r\n", status: 400},
	{name: "CL overflow", in: "POST / HTTP/1.1\r\n" + hostA + "Content-Length: 9223372036854775808\r\n\r\n", status: 400},
	{name: "CL too large", in: "POST / HTTP/1.1\r\n" + hostA + "Content-Length: 8388609\r\n\r\n", status: 413},
	{name: "CL max int64 too large", in: "POST / HTTP/1.1\r\n" + hostA + "Content-Length: 9223372036854775807\r\n\r\n", status: 413},

	// Transfer-Encoding.
	{name: "TE on 1.0", in: "POST / HTTP/1.0\r\n" + chunk + "\r\n", status: 400, reason: "Transfer-Encoding in an HTTP/1.0 request"},
	{name: "TE gzip", in: "POST / HTTP/1.1\r\n" + hostA + "Transfer-Encoding: gzip\r\n\r\n", status: 501},
	{name: "TE gzip, chunked", in: "POST / HTTP/1.1\r\n" + hostA + "Transfer-Encoding: gzip, chunked\r\n\r\n", status: 501},
	{name: "TE chunked, gzip", in: "POST / HTTP/1.1\r\n" + hostA + "Transfer-Encoding: chunked, gzip\r\n\r\n", status: 501, reason: "chunked is not the last transfer coding"},
	{name: "TE chunked twice", in: "POST / HTTP/1.1\r\n" + hostA + "Transfer-Encoding: chunked, chunked\r\n\r\n", status: 501, reason: "chunked applied more than once"},
	{name: "TE chunked in two fields", in: "POST / HTTP/1.1\r\n" + hostA + chunk + chunk + "\r\n", status: 501},
	{name: "TE with parameter", in: "POST / HTTP/1.1\r\n" + hostA + "Transfer-Encoding: chunked;q=1\r\n\r\n", status: 501},
	{name: "TE empty", in: "POST / HTTP/1.1\r\n" + hostA + "Transfer-Encoding: \r\n\r\n", status: 400, reason: "empty Transfer-Encoding"},
	{name: "TE identity", in: "POST / HTTP/1.1\r\n" + hostA + "Transfer-Encoding: identity\r\n\r\n", status: 501},

	// Chunked body.
	{name: "chunk size not hex", in: post("g\r\n"), status: 400, reason: "invalid chunk size"},
	{name: "chunk size empty", in: post("\r\n"), status: 400},
	{name: "chunk size with sign", in: post("+5\r\nhello\r\n0\r\n\r\n"), status: 400},
	{name: "chunk size 0x", in: post("0x5\r\nhello\r\n0\r\n\r\n"), status: 400},
	{name: "chunk size 17 digits", in: post("00000000000000001\r\nx\r\n0\r\n\r\n"), status: 400, reason: "chunk size too long"},
	{name: "chunk size overflow", lim: Limits{MaxBodyBytes: 1<<63 - 1}, in: post("8000000000000000\r\n"), status: 400},
	{name: "chunk data overrun", in: post("5\r\nhelloX\r\n0\r\n\r\n"), status: 400, reason: "chunk data not followed by CRLF"},
	{name: "chunk data bare LF", in: post("5\r\nhello\n0\r\n\r\n"), status: 400},
	{name: "chunk size bare LF", in: post("5\nhello\r\n0\r\n\r\n"), status: 400, reason: "chunk size line not terminated by CRLF"},
	{name: "chunk size CR CR", in: post("5\r\rhello\r\n0\r\n\r\n"), status: 400},
	{name: "chunk size trailing space", in: post("5 \r\nhello\r\n0\r\n\r\n"), status: 400},
	{name: "chunk ext empty name", in: post("5;\r\nhello\r\n0\r\n\r\n"), status: 400, reason: "invalid chunk extension"},
	{name: "chunk ext empty value", in: post("5;a=\r\nhello\r\n0\r\n\r\n"), status: 400},
	{name: "chunk ext bad byte", in: post("5;a@b\r\nhello\r\n0\r\n\r\n"), status: 400},
	{name: "chunk ext unterminated quote", in: post("5;a=\"x\r\nhello\r\n0\r\n\r\n"), status: 400},
	{name: "chunk ext junk after quote", in: post("5;a=\"x\"y\r\nhello\r\n0\r\n\r\n"), status: 400},
	{name: "chunk ext too long", in: post("5;a=" + strings.Repeat("x", 5000) + "\r\nhello\r\n0\r\n\r\n"), status: 400, reason: "chunk extension too long"},
	{name: "chunks over MaxBodyBytes", lim: Limits{MaxBodyBytes: 8}, in: post("5\r\nhello\r\n4\r\nbody\r\n0\r\n\r\n"), status: 413},
	{name: "one chunk over MaxBodyBytes", in: post("800001\r\n"), status: 413},
	{name: "trailer bad name", in: post("0\r\nBad Name: x\r\n\r\n"), status: 400},
	{name: "trailer no colon", in: post("0\r\nX\r\n\r\n"), status: 400},
	{name: "trailer obs-fold", in: post("0\r\nX: a\r\n b\r\n\r\n"), status: 400},
	{name: "trailer bad value", in: post("0\r\nX: a\x00\r\n\r\n"), status: 400},
	{name: "trailer bare LF", in: post("0\r\nX: a\n\r\n"), status: 400},
	{name: "trailer end bare LF", in: post("0\r\n\n"), status: 400},
	{name: "trailer end bare CR", in: post("0\r\n\rM"), status: 400, reason: "bare CR"},
	{name: "trailer bare CR after field", in: post("0\r\nX: a\r\n\rM"), status: 400, reason: "bare CR"},
	{name: "trailer bare CR starting a field line", in: post("0\r\n\rX: a\r\n\r\n"), status: 400, reason: "bare CR"},
	{name: "trailer CR, incomplete", in: post("0\r\n\r"), status: 0},
	{name: "trailer too large", lim: Limits{MaxHeaderBytes: 64}, in: post("0\r\nX: " + strings.Repeat("a", 60) + "\r\n\r\n"), status: 431, reason: "trailer section too large"},
	{name: "too many trailers", lim: Limits{MaxHeaderCount: 2}, in: post("0\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"), status: 431, reason: "too many trailer fields"},

	// Expect.
	{name: "Expect other", in: "GET / HTTP/1.1\r\n" + hostA + "Expect: foo\r\n\r\n", status: 417},
	{name: "Expect list", in: "POST / HTTP/1.1\r\n" + hostA + "Expect: 100-continue, foo\r\nContent-Length: 1\r\n\r\nx", status: 417},
	{name: "Expect empty", in: "GET / HTTP/1.1\r\n" + hostA + "Expect:\r\n\r\n", status: 417},

	// Limits.
	{name: "target too long", lim: Limits{MaxTargetBytes: 8}, in: "GET /12345678 HTTP/1.1\r\n" + hostA + "\r\n", status: 414},
	{name: "target too long, no version", lim: Limits{MaxTargetBytes: 8}, in: "GET /12345678\r\n" + hostA + "\r\n", status: 414},
	{name: "target too long, incomplete", lim: Limits{MaxTargetBytes: 8}, in: "GET /12345678", status: 414},
	{name: "target at limit, incomplete", lim: Limits{MaxTargetBytes: 8}, in: "GET /1234567", status: 0},
	{name: "default target limit", in: "GET /" + strings.Repeat("a", 8<<10) + " HTTP/1.1\r\n" + hostA + "\r\n", status: 414},
	{name: "head one byte too large", lim: Limits{MaxHeaderBytes: 49}, in: "POST /abc HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nxyz", status: 431, reason: "header section too large"},
	{name: "head too large, incomplete", lim: Limits{MaxHeaderBytes: 32}, in: "GET / HTTP/1.1\r\nX: " + strings.Repeat("b", 20), status: 431},
	{name: "head too large beats later error", lim: Limits{MaxHeaderBytes: 32}, in: "GET / HTTP/1.1\r\nX: " + strings.Repeat("b", 20) + "\n", status: 431},
	{name: "earlier error beats head too large", lim: Limits{MaxHeaderBytes: 32}, in: "GET / HTTP/1.1\nX: " + strings.Repeat("b", 20), status: 400},
	{name: "too many fields", lim: Limits{MaxHeaderCount: 3}, in: "GET / HTTP/1.1\r\n" + hostA + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n", status: 431, reason: "too many header fields"},
	{name: "too many fields, incomplete", lim: Limits{MaxHeaderCount: 3}, in: "GET / HTTP/1.1\r\n" + hostA + "A: 1\r\nB: 2\r\nC: 3\r\nD", status: 431},
	{name: "default field count", in: "GET / HTTP/1.1\r\n" + hostA + strings.Repeat("X: y\r\n", 128) + "\r\n", status: 431},
	{name: "default head size", in: "GET / HTTP/1.1\r\n" + hostA + "X: " + strings.Repeat("y", 16<<10) + "\r\n\r\n", status: 431},
	{name: "target limit beyond head limit", lim: Limits{MaxTargetBytes: 1 << 20, MaxHeaderBytes: 64}, in: "GET /" + strings.Repeat("a", 100), status: 431},
}

func TestParseBad(t *testing.T) {
	for _, tc := range badCases {
		t.Run(tc.name, func(t *testing.T) {
			o := drive(t, tc.lim, []byte(tc.in))
			if tc.status == 0 {
				if o.Err != nil || !o.Pending {
					t.Fatalf("want incomplete, got %v", o)
				}
				return
			}
			if o.Err == nil {
				t.Fatalf("no error: %v", o)
			}
			if o.Err.Status != tc.status {
				t.Fatalf("status %d (%s), want %d", o.Err.Status, o.Err.Reason, tc.status)
			}
			if tc.reason != "" && o.Err.Reason != tc.reason {
				t.Fatalf("reason %q, want %q", o.Err.Reason, tc.reason)
			}
		})
	}
}

// TestEarlyLimits checks that limits fire on an incomplete head, in the very
// call that crossed them, without waiting for the end of the line or head.
func TestEarlyLimits(t *testing.T) {
	cases := []struct {
		lim    Limits
		in     string
		status int
	}{
		{Limits{MaxTargetBytes: 8}, "GET /12345678", 414},
		{Limits{MaxHeaderBytes: 20}, "GET / HTTP/1.1\r\nX: 1234", 431},
		{Limits{MaxHeaderCount: 1}, "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\n", 431},
		{Limits{}, "\x16\x03\x01", 400},
	}
	for _, c := range cases {
		var p Parser
		p.Limits = c.lim
		var r Request
		_, _, err := p.Parse(&r, []byte(c.in))
		e, _ := err.(*Error)
		if e == nil || e.Status != c.status {
			t.Errorf("%q: err %v, want %d", c.in, err, c.status)
		}
	}
}

// TestBufferedBounded checks that a slow head never makes the parser hold
// more than MaxHeaderBytes.
func TestBufferedBounded(t *testing.T) {
	var p Parser
	p.Limits.MaxHeaderBytes = 100
	var r Request
	in := []byte("GET / HTTP/1.1\r\nX: " + strings.Repeat("z", 200))
	for i := range in {
		_, _, err := p.Parse(&r, in[i:i+1])
		if p.Buffered() > 100 || cap(p.hbuf) > 100 {
			t.Fatalf("buffered %d cap %d", p.Buffered(), cap(p.hbuf))
		}
		if err != nil {
			if i != 100 {
				t.Fatalf("431 at byte %d, want 100", i)
			}
			return
		}
	}
	t.Fatal("no error")
}
