package gwist_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

// largeBodyApp serves a 1 MiB file (WithMaxInlineFileBytes' default) and a
// small route. Inline, the file's body is larger than the engine copies
// into its output, so it goes out from the response's own buffer; on
// workers it streams (sendfile on plaintext, sealed a record at a time
// over TLS).
func largeBodyApp(root string, inline bool) *gwist.App {
	app := gwist.New(gwist.WithInline(inline), gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
	app.Static("/static", root)
	app.GET("/small", func(c *gwist.Ctx) error { return c.String(200, "small") })
	return app
}

// Large responses, inline and on workers, on every protocol: whole, in
// order behind and before small ones pipelined with them, HEAD without a
// body.
func TestLargeBodies(t *testing.T) {
	root := t.TempDir()
	data := bigFile(t, root, "big.bin", 1<<20)
	for _, inline := range []bool{true, false} {
		t.Run(fmt.Sprintf("inline=%v", inline), func(t *testing.T) { testLargeBodies(t, root, data, inline) })
	}
}

func testLargeBodies(t *testing.T, root string, data []byte, inline bool) {
	plain := startApp(t, largeBodyApp(root, inline))
	secure := startTLS(t, largeBodyApp(root, inline), serverTLSConfig(t))
	tlsConf := &tls.Config{RootCAs: getPKI(t).pool, ServerName: "localhost"}

	t.Run("HTTP/1 pipelined", func(t *testing.T) {
		nc, err := net.Dial("tcp", plain)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		checkPipelined(t, nc, data)
	})
	t.Run("HTTPS pipelined", func(t *testing.T) {
		nc, err := tls.Dial("tcp", secure, &tls.Config{RootCAs: tlsConf.RootCAs, ServerName: "localhost", NextProtos: []string{"http/1.1"}})
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		checkPipelined(t, nc, data)
	})
	clients := map[string]struct {
		c    *http.Client
		base string
	}{
		"h2":  {testkit.Client(t, testkit.H2(tlsConf)), "https://" + secure},
		"h2c": {h2cClient(t), "http://" + plain},
	}
	for name, tc := range clients {
		t.Run(name, func(t *testing.T) {
			for range 3 {
				resp, body := get(t, tc.c, tc.base+"/static/big.bin")
				if resp.StatusCode != 200 || resp.ProtoMajor != 2 || body != string(data) {
					t.Fatalf("%s %d, %d bytes", resp.Proto, resp.StatusCode, len(body))
				}
			}
		})
	}
}

// checkPipelined sends small, large, small, large, HEAD large, small in one
// write and reads the six responses in order.
func checkPipelined(t *testing.T, nc net.Conn, data []byte) {
	t.Helper()
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	order := []struct{ method, path, body string }{
		{"GET", "/small", "small"}, {"GET", "/static/big.bin", string(data)}, {"GET", "/small", "small"},
		{"GET", "/static/big.bin", string(data)}, {"HEAD", "/static/big.bin", ""}, {"GET", "/small", "small"},
	}
	var reqs bytes.Buffer
	for _, r := range order {
		fmt.Fprintf(&reqs, "%s %s HTTP/1.1\r\nHost: x\r\n\r\n", r.method, r.path)
	}
	if _, err := nc.Write(reqs.Bytes()); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(nc)
	for i, r := range order {
		resp, err := http.ReadResponse(br, &http.Request{Method: r.method})
		if err != nil {
			t.Fatalf("response %d: %v", i, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 || string(b) != r.body {
			t.Fatalf("response %d (%s %s): %d, %d bytes, %v", i, r.method, r.path, resp.StatusCode, len(b), err)
		}
		if r.method == "HEAD" && resp.ContentLength != int64(len(data)) {
			t.Fatalf("HEAD: Content-Length %d", resp.ContentLength)
		}
	}
}
