package gwist_test

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
)

// Large files (past the 64 KiB buffered size) leave through sendfile on
// plaintext, through the streaming writer over TLS, and read straight
// into the stream's queue over HTTP/2 (h2 and h2c): the bytes are the
// file's every way, whole, as one range at odd offsets, as several ranges,
// to an HTTP/1.0 client, and pipelined requests behind them are answered.
func TestStaticLargeFileBytes(t *testing.T) {
	root := staticTree(t)
	const size = 5<<20 + 12345
	data := bigFile(t, root, "big.bin", size)
	plain, tlsAddr := staticBoth(t, root)
	http1Client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	for _, tc := range []struct {
		name, base string
		c          *http.Client
		proto      int
	}{
		{"plaintext", "http://" + plain, http1Client, 1}, {"TLS", "https://" + tlsAddr, http1Client, 1},
		{"h2", "https://" + tlsAddr, h2TLSClient(t), 2}, {"h2c", "http://" + plain, h2cClient(t), 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c
			defer c.CloseIdleConnections()
			if resp, _ := doReq(t, c, "HEAD", tc.base+"/static/big.bin"); resp.ProtoMajor != tc.proto {
				t.Fatalf("%s, want HTTP/%d", resp.Proto, tc.proto)
			}
			url := tc.base + "/static/big.bin"
			if resp, body := doReq(t, c, "GET", url); resp.StatusCode != 200 || body != string(data) {
				t.Fatalf("whole file: %d, %d bytes, equal %v", resp.StatusCode, len(body), body == string(data))
			}
			lo, hi := 70001, 4<<20+3
			resp, body := doReq(t, c, "GET", url, "Range", fmt.Sprintf("bytes=%d-%d", lo, hi))
			if resp.StatusCode != 206 || body != string(data[lo:hi+1]) {
				t.Fatalf("range: %d, %d bytes", resp.StatusCode, len(body))
			}
			resp, body = doReq(t, c, "GET", url, "Range", "bytes=1-100000,3000000-3999999")
			_, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
			mr := multipart.NewReader(strings.NewReader(body), params["boundary"])
			for _, w := range [][]byte{data[1:100001], data[3000000:4000000]} {
				p, err := mr.NextPart()
				if err != nil {
					t.Fatalf("multi range: %d: %v", resp.StatusCode, err)
				}
				if got, _ := io.ReadAll(p); !bytes.Equal(got, w) {
					t.Fatalf("multi range part %q: %d bytes differ", p.Header.Get("Content-Range"), len(got))
				}
			}
		})
	}
	r := dialRaw(t, plain)
	r.send("GET /static/big.bin HTTP/1.0\r\n\r\n")
	if resp, body := r.readResponse("GET"); resp.StatusCode != 200 || body != string(data) {
		t.Fatalf("HTTP/1.0: %d, %d bytes", resp.StatusCode, len(body))
	}
	r = dialRaw(t, plain)
	r.send("GET /static/big.bin HTTP/1.1\r\nHost: x\r\n\r\nGET /static/hello.txt HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, body := r.readResponse("GET"); resp.StatusCode != 200 || body != string(data) {
		t.Fatalf("pipelined large file: %d, %d bytes", resp.StatusCode, len(body))
	}
	if resp, body := r.readResponse("GET"); resp.StatusCode != 200 || body != helloText {
		t.Fatalf("request behind the large file: %d %q", resp.StatusCode, body)
	}
}
