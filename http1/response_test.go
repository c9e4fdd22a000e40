package http1

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fixDate pins the Date cache for deterministic output.
func fixDate(t *testing.T) string {
	t.Helper()
	Date.Refresh(time.Date(2024, 3, 9, 8, 7, 6, 0, time.UTC))
	return "Sat, 09 Mar 2024 08:07:06 GMT"
}

func TestAppendHead(t *testing.T) {
	date := fixDate(t)
	var h Header
	mustSet(t, &h, "Content-Type", "text/plain")
	mustAdd(t, &h, "Set-Cookie", "a=1")
	mustAdd(t, &h, "Set-Cookie", "b=2")
	// Framing fields from the handler are dropped.
	mustSet(t, &h, "content-length", "999")
	mustSet(t, &h, "Transfer-Encoding", "gzip")
	mustSet(t, &h, "Connection", "keep-alive")
	mustSet(t, &h, "DATE", "yesterday")
	var up Header
	mustSet(t, &up, "Upgrade", "websocket")
	mustSet(t, &up, "Connection", "Upgrade")
	mustSet(t, &up, "Content-Length", "0")
	user := "Content-Type: text/plain\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n"

	cases := []struct {
		name string
		head ResponseHead
		want string
	}{
		{"200 keep-alive 1.1", ResponseHead{Status: 200, Header: &h, ContentLength: 5, ProtoMinor: 1, KeepAlive: true, Server: "gwist"},
			"HTTP/1.1 200 OK\r\nDate: " + date + "\r\nServer: gwist\r\n" + user + "Content-Length: 5\r\n\r\n"},
		{"close", ResponseHead{Status: 404, ContentLength: 0, ProtoMinor: 1},
			"HTTP/1.1 404 Not Found\r\nDate: " + date + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"},
		{"1.0 keep-alive", ResponseHead{Status: 200, ContentLength: 2, KeepAlive: true},
			"HTTP/1.1 200 OK\r\nDate: " + date + "\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\n"},
		{"chunked on 1.1", ResponseHead{Status: 200, ContentLength: -1, ProtoMinor: 1, KeepAlive: true},
			"HTTP/1.1 200 OK\r\nDate: " + date + "\r\nTransfer-Encoding: chunked\r\n\r\n"},
		{"unknown length on 1.0 closes", ResponseHead{Status: 200, ContentLength: -1, KeepAlive: true},
			"HTTP/1.1 200 OK\r\nDate: " + date + "\r\nConnection: close\r\n\r\n"},
		{"HEAD with length", ResponseHead{Status: 200, ContentLength: 42, ProtoMinor: 1, KeepAlive: true, HeadRequest: true},
			"HTTP/1.1 200 OK\r\nDate: " + date + "\r\nContent-Length: 42\r\n\r\n"},
		{"HEAD unknown length", ResponseHead{Status: 200, ContentLength: -1, KeepAlive: true, HeadRequest: true},
			"HTTP/1.1 200 OK\r\nDate: " + date + "\r\nConnection: keep-alive\r\n\r\n"},
		{"204", ResponseHead{Status: 204, ContentLength: 0, ProtoMinor: 1, KeepAlive: true},
			"HTTP/1.1 204 No Content\r\nDate: " + date + "\r\n\r\n"},
		{"304 close", ResponseHead{Status: 304, ContentLength: -1, ProtoMinor: 1},
			"HTTP/1.1 304 Not Modified\r\nDate: " + date + "\r\nConnection: close\r\n\r\n"},
		{"101", ResponseHead{Status: 101, ContentLength: 0, ProtoMinor: 1},
			"HTTP/1.1 101 Switching Protocols\r\nDate: " + date + "\r\n\r\n"},
		{"101 upgrade", ResponseHead{Status: 101, Header: &up, ContentLength: 0, ProtoMinor: 1},
			"HTTP/1.1 101 Switching Protocols\r\nDate: " + date + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"},
		{"unknown status", ResponseHead{Status: 599, ContentLength: 0, ProtoMinor: 1, KeepAlive: true},
			"HTTP/1.1 599 \r\nDate: " + date + "\r\nContent-Length: 0\r\n\r\n"},
		{"invalid status", ResponseHead{Status: 42, ContentLength: 0, ProtoMinor: 1, KeepAlive: true},
			"HTTP/1.1 500 Internal Server Error\r\nDate: " + date + "\r\nContent-Length: 0\r\n\r\n"},
		{"invalid server", ResponseHead{Status: 200, ContentLength: 0, ProtoMinor: 1, KeepAlive: true, Server: "x\r\nEvil: 1"},
			"HTTP/1.1 200 OK\r\nDate: " + date + "\r\nContent-Length: 0\r\n\r\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := string(AppendHead([]byte("prefix"), &c.head))
			if got != "prefix"+c.want {
				t.Fatalf("got\n%q\nwant\n%q", got, "prefix"+c.want)
			}
		})
	}
}

// TestAppendHeadNetHTTP checks the output with net/http's response reader.
func TestAppendHeadNetHTTP(t *testing.T) {
	var h Header
	mustSet(t, &h, "X-Test", "v\xff")
	out := AppendHead(nil, &ResponseHead{Status: 201, Header: &h, ContentLength: -1, ProtoMinor: 1, KeepAlive: true})
	out = AppendChunk(out, []byte("hello "))
	out = AppendChunk(out, nil)
	out = AppendChunk(out, []byte("world"))
	out = AppendLastChunk(out, []HeaderField{{"X-Sum", "1"}, {"Bad Name", "x"}, {"Content-Length", "3"}, {"X-Inj", "a\r\nb"}})
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(out)), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 201 || string(body) != "hello world" || resp.Header.Get("X-Test") != "v\xff" ||
		resp.Trailer.Get("X-Sum") != "1" || len(resp.Trailer) != 1 || resp.Close {
		t.Fatalf("status %d body %q header %v trailer %v close %v", resp.StatusCode, body, resp.Header, resp.Trailer, resp.Close)
	}
}

func TestAppendContinue(t *testing.T) {
	if got := string(AppendContinue([]byte("x"))); got != "xHTTP/1.1 100 Continue\r\n\r\n" {
		t.Fatal(got)
	}
}

func TestAppendError(t *testing.T) {
	date := fixDate(t)
	got := string(AppendError(nil, 503, 2))
	want := "HTTP/1.1 503 Service Unavailable\r\nDate: " + date + "\r\nContent-Type: text/plain; charset=utf-8\r\n" +
		"Content-Length: 20\r\nRetry-After: 2\r\nConnection: close\r\n\r\nService Unavailable\n"
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	for _, status := range []int{400, 413, 414, 417, 431, 500, 501, 505, 599, 7} {
		out := AppendError(nil, status, 0)
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(out)), nil)
		if err != nil {
			t.Fatalf("%d: %v", status, err)
		}
		body, _ := io.ReadAll(resp.Body)
		wantStatus := status
		if status == 7 {
			wantStatus = 500
		}
		text := statusText(wantStatus)
		if text == "" {
			text = "599"
		}
		if resp.StatusCode != wantStatus || string(body) != text+"\n" || !resp.Close || resp.Header.Get("Retry-After") != "" {
			t.Fatalf("%d: got %d %q close=%v", status, resp.StatusCode, body, resp.Close)
		}
	}
}

func TestStatusTextMatchesNetHTTP(t *testing.T) {
	for code := 100; code < 600; code++ {
		if got, want := statusText(code), http.StatusText(code); got != want {
			t.Errorf("%d: %q, net/http %q", code, got, want)
		}
	}
}

func TestAppendChunk(t *testing.T) {
	if got := string(AppendChunk(nil, bytes.Repeat([]byte("a"), 26))); got != "1a\r\n"+strings.Repeat("a", 26)+"\r\n" {
		t.Fatal(got)
	}
	if got := AppendChunk([]byte("x"), nil); string(got) != "x" {
		t.Fatal(string(got))
	}
	if got := string(AppendLastChunk(nil, nil)); got != "0\r\n\r\n" {
		t.Fatal(got)
	}
}

// TestChunkRoundTrip encodes with AppendChunk and decodes with the Parser.
func TestChunkRoundTrip(t *testing.T) {
	in := []byte("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n")
	var want []byte
	for i := 0; i < 40; i++ {
		p := bytes.Repeat([]byte{byte('a' + i%26)}, i*7)
		want = append(want, p...)
		in = AppendChunk(in, p)
	}
	in = AppendLastChunk(in, []HeaderField{{"X-T", "1"}})
	o := drive(t, Limits{}, in)
	if o.Err != nil || len(o.Reqs) != 1 || o.Reqs[0].Body != string(want) || len(o.Reqs[0].Trailers) != 1 {
		t.Fatal(o)
	}
}

func TestDateCache(t *testing.T) {
	var d DateCache
	if got := string(d.Append(nil)); len(got) != 29 || !strings.HasSuffix(got, " GMT") {
		t.Fatalf("lazy date %q", got)
	}
	d.Refresh(time.Date(1994, 11, 6, 8, 49, 37, 0, time.FixedZone("x", 3600)))
	if got := string(d.Append([]byte("D: "))); got != "D: Sun, 06 Nov 1994 07:49:37 GMT" {
		t.Fatal(got)
	}
	// Concurrent refresh and read (run with -race).
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; i < 200; i++ {
			d.Refresh(time.Unix(int64(i), 0))
		}
	}()
	for i := 0; i < 200; i++ {
		if len(d.Append(nil)) != 29 {
			t.Fatal("bad date")
		}
	}
	<-done
}

func mustSet(t *testing.T, h *Header, k, v string) {
	t.Helper()
	if err := h.Set(k, v); err != nil {
		t.Fatal(err)
	}
}

func mustAdd(t *testing.T, h *Header, k, v string) {
	t.Helper()
	if err := h.Add(k, v); err != nil {
		t.Fatal(err)
	}
}
