package http1

import (
	"strings"
	"testing"
)

// TestChunkLineLimit pins the size-line bound: 4096 bytes with CRLF pass,
// one more fails, and the count restarts with every chunk.
func TestChunkLineLimit(t *testing.T) {
	line := func(n int) string { return "1;a=" + strings.Repeat("x", n) + "\r\nz\r\n" }
	o := drive(t, Limits{}, []byte(post(line(4090)+"0\r\n\r\n")))
	if o.Err != nil || len(o.Reqs) != 1 || o.Reqs[0].Body != "z" {
		t.Fatalf("4096-byte size line: %v", o)
	}
	o = drive(t, Limits{}, []byte(post(line(4091)+"0\r\n\r\n")))
	if o.Err == nil || o.Err.Reason != errChunkExtLong.Reason {
		t.Fatalf("4097-byte size line: %v", o)
	}
	// 3000 chunks with 10-byte size lines: 30 KB of size lines in all.
	o = drive(t, Limits{}, []byte(post(strings.Repeat("1;abcdef\r\nz\r\n", 3000)+"0\r\n\r\n")))
	if o.Err != nil || len(o.Reqs) != 1 || len(o.Reqs[0].Body) != 3000 {
		t.Fatalf("many chunks: %v", o.Err)
	}
}

// TestChunkedBodyBound checks that a chunked body exactly at MaxBodyBytes
// passes and that the buffer never grows past the limit.
func TestChunkedBodyBound(t *testing.T) {
	lim := Limits{MaxBodyBytes: 1000}
	var b strings.Builder
	for i := 0; i < 10; i++ {
		b.WriteString("64\r\n" + strings.Repeat("q", 100) + "\r\n")
	}
	in := []byte(post(b.String() + "0\r\n\r\n"))
	var p Parser
	p.Limits = lim
	var r Request
	for len(in) > 0 {
		k := min(len(in), 37)
		n, ev, err := p.Parse(&r, in[:k])
		if err != nil {
			t.Fatal(err)
		}
		if cap(r.body) > 1000 {
			t.Fatalf("body buffer capacity %d over the limit", cap(r.body))
		}
		in = in[n:]
		if ev == MessageComplete {
			break
		}
	}
	if len(r.Body) != 1000 {
		t.Fatalf("body %d bytes", len(r.Body))
	}
	o := drive(t, lim, []byte(post(b.String()+"1\r\n")))
	if o.Err == nil || o.Err.Status != 413 {
		t.Fatalf("one byte over: %v", o)
	}
}
