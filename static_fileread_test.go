package gwist_test

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// Over HTTP/2 a file's bytes are read straight into the stream's queue
// buffer, which the loop does not see while a read fills it. Several large
// ranges on one connection, one of them read slowly enough that its queue
// and window fill, each arrive whole and in order, twice in a row (the
// second round reuses the buffers the first gave back).
func TestHTTP2FileReadsConcurrent(t *testing.T) {
	root := t.TempDir()
	const size = 9<<20 + 4321
	data := bigFile(t, root, "big.bin", size)
	plain, tlsAddr := staticBoth(t, root)
	ranges := [][2]int{{0, size - 1}, {1, 3<<20 + 17}, {70001, 70001 + 5<<20}, {size - 300000, size - 1}, {12345, 12345 + 65536}}
	for _, tc := range []struct {
		name, base string
		c          *http.Client
	}{{"h2", "https://" + tlsAddr, h2TLSClient(t)}, {"h2c", "http://" + plain, h2cClient(t)}} {
		t.Run(tc.name, func(t *testing.T) {
			defer tc.c.CloseIdleConnections()
			for round := range 2 {
				var wg sync.WaitGroup
				errs := make(chan error, len(ranges))
				for i, r := range ranges {
					wg.Add(1)
					go func() {
						defer wg.Done()
						errs <- fetchRange(tc.c, tc.base+"/static/big.bin", r, data[r[0]:r[1]+1], i == 0)
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					if err != nil {
						t.Errorf("round %d: %v", round, err)
					}
				}
			}
		})
	}
}

// fetchRange GETs the range r of url and compares it with want; slow reads
// it in small pieces with pauses, past the client's stream window.
func fetchRange(c *http.Client, url string, r [2]int, want []byte, slow bool) error {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", r[0], r[1]))
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.ProtoMajor != 2 || resp.StatusCode != http.StatusPartialContent {
		return fmt.Errorf("range %v: %s %d", r, resp.Proto, resp.StatusCode)
	}
	var got []byte
	if slow {
		buf := make([]byte, 256<<10)
		for {
			n, err := resp.Body.Read(buf)
			got = append(got, buf[:n]...)
			if err == io.EOF {
				break
			}
			if err != nil {
				return fmt.Errorf("range %v after %d bytes: %v", r, len(got), err)
			}
			if len(got) < 6<<20 {
				time.Sleep(2 * time.Millisecond)
			}
		}
	} else if got, err = io.ReadAll(resp.Body); err != nil {
		return fmt.Errorf("range %v after %d bytes: %v", r, len(got), err)
	}
	if !bytes.Equal(got, want) {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		return fmt.Errorf("range %v: %d bytes, want %d; first difference at byte %d", r, len(got), len(want), i)
	}
	return nil
}

// A file that shrinks while it is being sent (after its length went out in
// the head) must never look complete: the client sees the response cut off
// (an HTTP/2 stream reset, an HTTP/1 connection closed short of its
// Content-Length), and the bytes it did get are the file's. Over
// plaintext HTTP/1 the body leaves through sendfile, over TLS through the
// streaming writer, over HTTP/2 through reads into the stream's queue.
func TestFileShrinksWhileSent(t *testing.T) {
	const size, cut = 32 << 20, 16 << 20
	for _, tc := range []struct {
		name string
		tls  bool
		c    func(t *testing.T) *http.Client
	}{
		{"plaintext", false, func(*testing.T) *http.Client { return &http.Client{} }},
		{"TLS", true, func(*testing.T) *http.Client {
			return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
		}},
		{"h2", true, h2TLSClient}, {"h2c", false, h2cClient},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			data := bigFile(t, root, "big.bin", size)
			app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
			app.Static("/static", root)
			base := "http://"
			if tc.tls {
				base = "https://" + startTLS(t, app, serverTLSConfig(t))
			} else {
				base += startApp(t, app)
			}
			c := tc.c(t)
			defer c.CloseIdleConnections()
			resp, err := c.Get(base + "/static/big.bin")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != 200 || resp.ContentLength != size {
				t.Fatalf("%d, Content-Length %d", resp.StatusCode, resp.ContentLength)
			}
			got := make([]byte, 64<<10)
			if _, err := io.ReadFull(resp.Body, got); err != nil {
				t.Fatal(err)
			}
			// The server is at most its queue, the socket buffers and the
			// client's window ahead of this client: well short of cut.
			if err := os.Truncate(filepath.Join(root, "big.bin"), cut); err != nil {
				t.Fatal(err)
			}
			rest, err := io.ReadAll(resp.Body)
			got = append(got, rest...)
			if err == nil {
				t.Fatalf("the body ended cleanly after %d of %d bytes", len(got), size)
			}
			if len(got) >= size || !bytes.Equal(got, data[:len(got)]) {
				t.Fatalf("%d bytes before %v; the file's own: %v", len(got), err, bytes.Equal(got, data[:min(len(got), size)]))
			}
		})
	}
}
