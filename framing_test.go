package gwist_test

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gwist/gwist"
)

// framingCases: every framing rule of RFC 9112 the server enforces, with the
// status it must answer before closing the connection.
var framingCases = []struct {
	name   string
	req    string
	status int
}{
	{"malformed request line", "GET /\r\nHost: x\r\n\r\n", 400},
	{"extra space in request line", "GET  / HTTP/1.1\r\nHost: x\r\n\r\n", 400},
	{"bad method token", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", 400},
	{"bad version", "GET / HTTP/1.x\r\nHost: x\r\n\r\n", 400},
	{"lowercase version", "GET / http/1.1\r\nHost: x\r\n\r\n", 400},
	{"unsupported major version", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", 505},
	{"CR in header value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n", 400},
	{"NUL in header value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n", 400},
	{"bare LF line ending", "GET / HTTP/1.1\nHost: x\n\n", 400},
	{"non-token header name", "GET / HTTP/1.1\r\nHost: x\r\nX(A): b\r\n\r\n", 400},
	{"whitespace before colon", "GET / HTTP/1.1\r\nHost: x\r\nX-A : b\r\n\r\n", 400},
	{"obs-fold", "GET / HTTP/1.1\r\nHost: x\r\nX-A: b\r\n  c\r\n\r\n", 400},
	{"missing Host", "GET / HTTP/1.1\r\nX-A: b\r\n\r\n", 400},
	{"repeated Host", "GET / HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", 400},
	{"CL and TE", "POST /c HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
	{"differing Content-Lengths", "POST /c HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", 400},
	{"non-digit Content-Length", "POST /c HTTP/1.1\r\nHost: x\r\nContent-Length: 3a\r\n\r\nabc", 400},
	{"signed Content-Length", "POST /c HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc", 400},
	{"TE in HTTP/1.0", "POST /c HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400},
	{"bad chunk size", "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n", 400},
	{"bad chunk line ending", "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\nabc\r\n0\r\n\r\n", 400},
	{"chunk data overrun", "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n", 400},
	{"unknown transfer-coding", "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
	{"chunked not last", "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", 501},
	{"expectation other than 100-continue", "POST /c HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\nContent-Length: 1\r\n\r\na", 417},
	{"target over the limit", "GET /" + strings.Repeat("a", 300) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414},
	{"header section over the limit", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("b", 2000) + "\r\n\r\n", 431},
	{"declared body over the limit", "POST /c HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n", 413},
}

func TestFramingErrorsCloseAndExecuteNothingAfter(t *testing.T) {
	var executed atomic.Int32
	app := gwist.New(
		gwist.WithMaxTargetBytes(256),
		gwist.WithMaxHeaderBytes(1024),
		gwist.WithMaxBodyBytes(1000),
	)
	app.GET("/count", func(c *gwist.Ctx) error { executed.Add(1); return c.String(200, "counted") })
	app.POST("/c", func(c *gwist.Ctx) error { executed.Add(1); return c.String(200, "counted") })
	addr := startApp(t, app)
	follow := "GET /count HTTP/1.1\r\nHost: x\r\n\r\n"
	for _, tc := range framingCases {
		t.Run(tc.name, func(t *testing.T) {
			before := executed.Load()
			r := dialRaw(t, addr)
			r.send(tc.req + follow)
			resp, _ := r.readResponse("GET")
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if !resp.Close {
				t.Errorf("response does not say Connection: close")
			}
			r.expectClosed()
			if n := executed.Load() - before; n != 0 {
				t.Fatalf("%d request(s) executed after a framing error", n)
			}
		})
	}
}

func TestGoodFramingIsServed(t *testing.T) {
	app := gwist.New()
	app.POST("/echo", func(c *gwist.Ctx) error { return c.Bytes(200, "text/plain", c.Body()) })
	addr := startApp(t, app)
	r := dialRaw(t, addr)
	// Chunked with an extension and a trailer, then a repeated identical
	// Content-Length, then an HTTP/1.0 keep-alive request, all pipelined.
	r.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-Trailer: t\r\n\r\n" +
		"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nfg" +
		"POST /echo HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\nh")
	for _, want := range []string{"abcde", "fg", "h"} {
		resp, body := r.readResponse("POST")
		if resp.StatusCode != 200 || body != want {
			t.Fatalf("got %d %q, want %q", resp.StatusCode, body, want)
		}
	}
	// HTTP/1.0 without keep-alive: answered, then closed.
	r.send("POST /echo HTTP/1.0\r\nContent-Length: 1\r\n\r\ni")
	if resp, body := r.readResponse("POST"); body != "i" || !resp.Close {
		t.Fatalf("1.0 close: %q close=%v", body, resp.Close)
	}
	r.expectClosed()
}

func TestExpectContinue(t *testing.T) {
	app := gwist.New()
	app.POST("/echo", func(c *gwist.Ctx) error { return c.Bytes(200, "text/plain", c.Body()) })
	addr := startApp(t, app)
	r := dialRaw(t, addr)
	r.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
	line, err := r.br.ReadString('\n')
	if err != nil || line != "HTTP/1.1 100 Continue\r\n" {
		t.Fatalf("interim response %q, %v", line, err)
	}
	if blank, _ := r.br.ReadString('\n'); blank != "\r\n" {
		t.Fatalf("after 100: %q", blank)
	}
	r.send("hello")
	if resp, body := r.readResponse("POST"); resp.StatusCode != 200 || body != "hello" {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
}
