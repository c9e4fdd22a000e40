package http1_test

import (
	"fmt"
	"time"

	"github.com/gwist/gwist/http1"
)

// Parse requests the way an engine does: feed what was read, drop the
// bytes Parse used, and act on the event.
func ExampleParser_Parse() {
	var p http1.Parser
	var req http1.Request

	// Two pipelined requests, the second arriving in two reads.
	reads := [][]byte{
		[]byte("GET /hello?name=gwist HTTP/1.1\r\nHost: example.com\r\n\r\nPOST /up HTTP/1.1\r\nHost: ex"),
		[]byte("ample.com\r\nContent-Length: 5\r\n\r\nhello"),
	}
	var in []byte
	for _, r := range reads {
		in = append(in, r...)
		for len(in) > 0 {
			n, ev, err := p.Parse(&req, in)
			if err != nil {
				// Answer with http1.AppendError(nil, err.(*http1.Error).Status, 0)
				// and close the connection.
				fmt.Println("error:", err)
				return
			}
			in = in[n:]
			if ev == http1.NeedMore {
				break
			}
			if ev == http1.HeadComplete {
				continue // a body follows (send 100 Continue if req.Expect100)
			}
			fmt.Printf("%s %s query=%q host=%s body=%q keep-alive=%v\n",
				req.Method, req.Path, req.RawQuery, req.Host, req.Body, req.KeepAlive)
			req.Reset() // the next request starts on a clean Request
		}
	}
	// Output:
	// GET /hello query="name=gwist" host=example.com body="" keep-alive=true
	// POST /up query="" host=example.com body="hello" keep-alive=true
}

func ExampleAppendHead() {
	http1.Date.Refresh(time.Date(2024, 3, 9, 8, 7, 6, 0, time.UTC)) // the engine does this every second

	var h http1.Header
	_ = h.Set("Content-Type", "text/plain")
	body := "hello\n"
	out := http1.AppendHead(nil, &http1.ResponseHead{
		Status:        200,
		Header:        &h,
		ContentLength: int64(len(body)),
		ProtoMinor:    1,
		KeepAlive:     true,
		Server:        "gwist",
	})
	out = append(out, body...)
	fmt.Printf("%q\n", out)
	// Output:
	// "HTTP/1.1 200 OK\r\nDate: Sat, 09 Mar 2024 08:07:06 GMT\r\nServer: gwist\r\nContent-Type: text/plain\r\nContent-Length: 6\r\n\r\nhello\n"
}

// A response of unknown length on HTTP/1.1 is sent chunked.
func ExampleAppendChunk() {
	http1.Date.Refresh(time.Date(2024, 3, 9, 8, 7, 6, 0, time.UTC))
	out := http1.AppendHead(nil, &http1.ResponseHead{Status: 200, ContentLength: -1, ProtoMinor: 1, KeepAlive: true})
	out = http1.AppendChunk(out, []byte("hello, "))
	out = http1.AppendChunk(out, []byte("world"))
	out = http1.AppendLastChunk(out, []http1.HeaderField{{Name: "X-Done", Value: "yes"}})
	fmt.Printf("%q\n", out)
	// Output:
	// "HTTP/1.1 200 OK\r\nDate: Sat, 09 Mar 2024 08:07:06 GMT\r\nTransfer-Encoding: chunked\r\n\r\n7\r\nhello, \r\n5\r\nworld\r\n0\r\nX-Done: yes\r\n\r\n"
}

func ExampleAppendError() {
	http1.Date.Refresh(time.Date(2024, 3, 9, 8, 7, 6, 0, time.UTC))
	fmt.Printf("%q\n", http1.AppendError(nil, 431, 0))
	// Output:
	// "HTTP/1.1 431 Request Header Fields Too Large\r\nDate: Sat, 09 Mar 2024 08:07:06 GMT\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 32\r\nConnection: close\r\n\r\nRequest Header Fields Too Large\n"
}

// Header refuses fields that would break the response framing.
func ExampleHeader_Set() {
	var h http1.Header
	fmt.Println(h.Set("Location", "/next"))
	fmt.Println(h.Set("Location", "/x\r\nSet-Cookie: evil=1"))
	fmt.Println(h.Get("location"))
	// Output:
	// <nil>
	// http1: invalid header field name or value
	// /next
}

func ExampleRequest_Header() {
	var p http1.Parser
	var req http1.Request
	p.Parse(&req, []byte("GET / HTTP/1.1\r\nHost: a\r\naccept: text/html\r\n\r\n"))
	fmt.Println(req.Header("Accept"))
	// Output:
	// text/html
}
