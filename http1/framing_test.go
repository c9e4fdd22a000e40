package http1

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestFramingMatchesAppendHead(t *testing.T) {
	cases := []struct {
		name string
		h    ResponseHead
		want BodyFraming
	}{
		{"length", ResponseHead{Status: 200, ContentLength: 5, ProtoMinor: 1, KeepAlive: true}, FramingLength},
		{"length 1.0", ResponseHead{Status: 200, ContentLength: 0, ProtoMinor: 0}, FramingLength},
		{"chunked", ResponseHead{Status: 200, ContentLength: -1, ProtoMinor: 1, KeepAlive: true}, FramingChunked},
		{"chunked no keep-alive", ResponseHead{Status: 200, ContentLength: -1, ProtoMinor: 1}, FramingChunked},
		{"close-delimited 1.0", ResponseHead{Status: 200, ContentLength: -1, ProtoMinor: 0, KeepAlive: true}, FramingClose},
		{"head", ResponseHead{Status: 200, ContentLength: -1, ProtoMinor: 1, HeadRequest: true, KeepAlive: true}, FramingNone},
		{"204", ResponseHead{Status: 204, ContentLength: -1, ProtoMinor: 1}, FramingNone},
		{"304", ResponseHead{Status: 304, ContentLength: 10, ProtoMinor: 1}, FramingNone},
		{"101", ResponseHead{Status: 101, ContentLength: -1, ProtoMinor: 1}, FramingNone},
		{"bad status is 500", ResponseHead{Status: 42, ContentLength: -1, ProtoMinor: 1}, FramingChunked},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.h.Framing(); got != tc.want {
				t.Fatalf("Framing() = %d, want %d", got, tc.want)
			}
			head := string(AppendHead(nil, &tc.h))
			te := strings.Contains(head, "Transfer-Encoding: chunked\r\n")
			cl := strings.Contains(head, "Content-Length: ")
			closes := strings.Contains(head, "Connection: close\r\n")
			switch tc.want {
			case FramingChunked:
				if !te || cl {
					t.Fatalf("chunked framing, head %q", head)
				}
			case FramingLength:
				if te || !cl {
					t.Fatalf("length framing, head %q", head)
				}
			case FramingClose:
				if te || cl || !closes {
					t.Fatalf("close framing, head %q", head)
				}
			case FramingNone:
				if te {
					t.Fatalf("no body, head %q", head)
				}
			}
		})
	}
}

// A streamed chunked body written piece by piece with AppendChunkHeader,
// ended with trailers, is read by net/http's response reader.
func TestStreamedChunksNetHTTP(t *testing.T) {
	var h Header
	mustSet(t, &h, "Trailer", "X-Digest")
	out := AppendHead(nil, &ResponseHead{Status: 200, Header: &h, ContentLength: -1, ProtoMinor: 1, KeepAlive: true})
	var want []byte
	for _, n := range []int{1, 15, 16, 255, 4096, 70000} {
		p := bytes.Repeat([]byte{byte('a' + n%26)}, n)
		want = append(want, p...)
		out = AppendChunkHeader(out, n)
		out = append(append(out, p...), "\r\n"...)
	}
	out = AppendLastChunk(out, []HeaderField{{"X-Digest", "abc"}})
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(out)), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, want) || resp.Trailer.Get("X-Digest") != "abc" || resp.Close {
		t.Fatalf("body %d bytes (want %d), trailer %v, close %v", len(body), len(want), resp.Trailer, resp.Close)
	}
}

func TestAppendChunkHeader(t *testing.T) {
	for n, want := range map[int]string{1: "1\r\n", 15: "f\r\n", 16: "10\r\n", 0x7fff: "7fff\r\n", 1 << 40: "10000000000\r\n"} {
		if got := string(AppendChunkHeader(nil, n)); got != want {
			t.Errorf("AppendChunkHeader(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestParseContentLength(t *testing.T) {
	good := map[string]int64{"0": 0, "7": 7, "123456789012345678": 123456789012345678}
	for s, want := range good {
		if n, ok := ParseContentLength(s); !ok || n != want {
			t.Errorf("ParseContentLength(%q) = %d, %v", s, n, ok)
		}
	}
	for _, s := range []string{"", "-1", "+1", " 1", "1 ", "1,1", "0x10", "1234567890123456789"} {
		if _, ok := ParseContentLength(s); ok {
			t.Errorf("ParseContentLength(%q) accepted", s)
		}
	}
}
