package gwist_test

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// streamedPattern is the body the streamed-body routes send: no two
// stretches alike, so a buffer reused too early or handed out twice shows
// as wrong bytes, not only as a wrong length.
var streamedPattern = func() []byte {
	b := make([]byte, 8<<20)
	r := rand.New(rand.NewPCG(26, 35))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}()

// streamedPieces are the sizes a handler writes in, in turn: below, at and
// past the stream threshold and the stream's queue bound.
var streamedPieces = []int{1, 4093, 65536, 100003, 7, 300001, 32768}

// streamedBodyApp streams the first n bytes of streamedPattern from
// /pattern?n=N in streamedPieces, and with &flush=1 flushes after every
// piece.
func streamedBodyApp() *gwist.App {
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
	app.GET("/pattern", func(c *gwist.Ctx) error {
		n, _ := strconv.Atoi(c.Query("n"))
		flush := c.Query("flush") == "1"
		for off, i := 0, 0; off < n; i++ {
			end := min(off+streamedPieces[i%len(streamedPieces)], n)
			if _, err := c.Write(streamedPattern[off:end]); err != nil {
				return err
			}
			if flush {
				if err := c.Flush(); err != nil {
					return err
				}
			}
			off = end
		}
		return nil
	})
	return app
}

// Streamed HTTP/2 responses travel in body buffers that go round between
// the handler and the loop, and come from (and go back to) shared pools:
// several streams on one connection, one read slowly enough that its
// window shuts and its queue stalls, each get exactly their bytes, over
// TLS and h2c.
func TestHTTP2StreamedBodiesWhole(t *testing.T) {
	cases := []struct {
		n           int
		flush, slow bool
	}{
		{n: 6 << 20, slow: true}, {n: 5 << 19}, {n: 5<<19 + 1, flush: true}, {n: 1 << 20}, {n: 70000, flush: true},
	}
	for name, tc := range h2Endpoints(t, streamedBodyApp) {
		t.Run(name, func(t *testing.T) {
			for round := range 2 { // the second round takes buffers the first gave back
				var wg sync.WaitGroup
				for i, sc := range cases {
					wg.Add(1)
					go func() {
						defer wg.Done()
						url := fmt.Sprintf("%s/pattern?n=%d", tc.base, sc.n)
						if sc.flush {
							url += "&flush=1"
						}
						if err := checkStreamed(tc.c, url, sc.n, sc.slow); err != nil {
							t.Errorf("round %d, request %d (%s): %v", round, i, url, err)
						}
					}()
				}
				wg.Wait()
			}
		})
	}
}

// checkStreamed GETs url and compares its body with the first n bytes of
// streamedPattern; slow reads it in 64 KiB pieces with a pause after
// each, so that a body past the client's stream window (4 MiB for Go's
// transport) stalls.
func checkStreamed(c *http.Client, url string, n int, slow bool) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var got []byte
	if slow {
		buf := make([]byte, 64<<10)
		for {
			k, err := io.ReadFull(resp.Body, buf)
			got = append(got, buf[:k]...)
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				break
			}
			if err != nil {
				return err
			}
			time.Sleep(2 * time.Millisecond)
		}
	} else if got, err = io.ReadAll(resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != 200 || resp.ProtoMajor != 2 {
		return fmt.Errorf("%s %d", resp.Proto, resp.StatusCode)
	}
	if len(got) != n {
		return fmt.Errorf("%d bytes, want %d", len(got), n)
	}
	if i := firstDiff(got, streamedPattern[:n]); i >= 0 {
		return fmt.Errorf("byte %d of %d differs", i, n)
	}
	return nil
}

// firstDiff is the index of the first byte where a and b differ, -1 if
// none (a and b of one length).
func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}
