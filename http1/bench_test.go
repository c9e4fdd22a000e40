package http1

import (
	"bytes"
	"testing"
)

var (
	simpleGET = []byte("GET / HTTP/1.1\r\nHost: localhost:8080\r\nUser-Agent: wrk/4.2.0\r\nAccept: */*\r\n\r\n")

	browserGET = []byte("GET /articles/2024/http-parsing?page=2&sort=new HTTP/1.1\r\n" +
		"Host: www.example.com\r\n" +
		"Connection: keep-alive\r\n" +
		"Cache-Control: max-age=0\r\n" +
		"sec-ch-ua: \"Chromium\";v=\"124\", \"Google Chrome\";v=\"124\", \"Not-A.Brand\";v=\"99\"\r\n" +
		"sec-ch-ua-mobile: ?0\r\n" +
		"Upgrade-Insecure-Requests: 1\r\n" +
		"User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36\r\n" +
		"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\n" +
		"Accept-Encoding: gzip, deflate, br, zstd\r\n" +
		"Accept-Language: en-US,en;q=0.9,de;q=0.8\r\n" +
		"Cookie: session=3f9a1c0e5b7d4e2a8c6b; theme=dark; _ga=GA1.2.1234567890.1700000000\r\n\r\n")

	postCL = []byte("POST /api/items HTTP/1.1\r\nHost: api.example.com\r\nContent-Type: application/json\r\n" +
		"Content-Length: 27\r\n\r\n{\"name\":\"widget\",\"qty\":12}\n")

	postChunked = []byte("POST /upload HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n" +
		"10;ext=1\r\n0123456789abcdef\r\n5\r\nhello\r\n0\r\nX-Checksum: 42\r\n\r\n")
)

// parseOne parses one complete request from in into r (Reset first).
func parseOne(p *Parser, r *Request, in []byte) error {
	r.Reset()
	for len(in) > 0 {
		n, ev, err := p.Parse(r, in)
		if err != nil {
			return err
		}
		in = in[n:]
		if ev == MessageComplete {
			return nil
		}
	}
	return nil
}

func TestParseAllocs(t *testing.T) {
	for name, in := range map[string][]byte{"simple": simpleGET, "browser": browserGET, "post": postCL, "chunked": postChunked} {
		var p Parser
		var r Request
		if err := parseOne(&p, &r, in); err != nil {
			t.Fatal(name, err)
		}
		if a := testing.AllocsPerRun(200, func() {
			if err := parseOne(&p, &r, in); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("%s: %.1f allocs per request, want 0", name, a)
		}
	}
}

// TestParseAllocsSplit checks the buffered (incomplete head) path too.
func TestParseAllocsSplit(t *testing.T) {
	var p Parser
	var r Request
	half := len(browserGET) / 2
	run := func() {
		r.Reset()
		if _, ev, err := p.Parse(&r, browserGET[:half]); err != nil || ev != NeedMore {
			t.Fatal(ev, err)
		}
		if _, ev, err := p.Parse(&r, browserGET[half:]); err != nil || ev != MessageComplete {
			t.Fatal(ev, err)
		}
	}
	run()
	if a := testing.AllocsPerRun(200, run); a != 0 {
		t.Errorf("%.1f allocs per split request, want 0", a)
	}
}

func TestAppendHeadAllocs(t *testing.T) {
	var h Header
	mustSet(t, &h, "Content-Type", "text/plain; charset=utf-8")
	mustSet(t, &h, "Cache-Control", "no-store")
	head := ResponseHead{Status: 200, Header: &h, ContentLength: 13, ProtoMinor: 1, KeepAlive: true, Server: "gwist"}
	buf := make([]byte, 0, 512)
	if a := testing.AllocsPerRun(200, func() { buf = AppendHead(buf[:0], &head) }); a != 0 {
		t.Errorf("AppendHead: %.1f allocs, want 0", a)
	}
	if a := testing.AllocsPerRun(200, func() {
		buf = AppendChunk(buf[:0], []byte("hello"))
		buf = AppendLastChunk(buf, nil)
		buf = AppendError(buf, 503, 1)
	}); a != 0 {
		t.Errorf("chunk/error: %.1f allocs, want 0", a)
	}
}

func benchParse(b *testing.B, in []byte) {
	var p Parser
	var r Request
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		if err := parseOne(&p, &r, in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseSimpleGET(b *testing.B)  { benchParse(b, simpleGET) }
func BenchmarkParseBrowserGET(b *testing.B) { benchParse(b, browserGET) }
func BenchmarkParsePostCL(b *testing.B)     { benchParse(b, postCL) }
func BenchmarkParseChunked(b *testing.B)    { benchParse(b, postChunked) }

// BenchmarkParseBrowserGETSplit feeds the head in two halves (the buffered
// path).
func BenchmarkParseBrowserGETSplit(b *testing.B) {
	var p Parser
	var r Request
	half := len(browserGET) / 2
	b.ReportAllocs()
	b.SetBytes(int64(len(browserGET)))
	for b.Loop() {
		r.Reset()
		p.Parse(&r, browserGET[:half])
		if _, ev, err := p.Parse(&r, browserGET[half:]); err != nil || ev != MessageComplete {
			b.Fatal(ev, err)
		}
	}
}

// BenchmarkParsePipelined16 parses 16 pipelined simple GETs from one
// buffer, as the engine would; ns/op is for all 16.
func BenchmarkParsePipelined16(b *testing.B) {
	in := bytes.Repeat(simpleGET, 16)
	var p Parser
	var r Request
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		buf := in
		for len(buf) > 0 {
			r.Reset()
			n, _, err := p.Parse(&r, buf)
			if err != nil {
				b.Fatal(err)
			}
			buf = buf[n:]
		}
	}
}

func BenchmarkAppendHead(b *testing.B) {
	var h Header
	h.Set("Content-Type", "text/plain; charset=utf-8")
	head := ResponseHead{Status: 200, Header: &h, ContentLength: 13, ProtoMinor: 1, KeepAlive: true, Server: "gwist"}
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendHead(buf[:0], &head)
	}
}
