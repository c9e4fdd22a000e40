package gwist_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// fairnessApp serves an endless download, a small answer and an event
// stream that sends an event every 20 ms.
func fairnessApp() *gwist.App {
	app := gwist.New(gwist.WithHTTP2(true), gwist.WithLogger(discardLogger()))
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 2048) // 32 KiB
	app.GET("/download", func(c *gwist.Ctx) error {
		for c.Context().Err() == nil {
			if _, err := c.Write(chunk); err != nil {
				return nil
			}
		}
		return nil
	})
	app.GET("/small", func(c *gwist.Ctx) error { return c.String(200, "small") })
	app.GET("/events", func(c *gwist.Ctx) error {
		return c.SSE(func(s *gwist.SSE) error {
			for i := range 10 {
				if err := s.Send(gwist.SSEEvent{Data: strings.Repeat("x", i+1)}); err != nil {
					return err
				}
				time.Sleep(20 * time.Millisecond)
			}
			return nil
		})
	})
	return app
}

// Fairness on one HTTP/2 connection (Go's client, h2c and TLS): while 8
// large downloads run on it, a small GET's response (HEADERS and DATA)
// comes within 50 ms (the median of 10), and an event stream's events
// arrive as they are sent, not batched behind the downloads' bytes.
func TestHTTP2SmallResponseBesideDownloads(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if raceEnabled {
		// Under the race detector, on a shared 2-core machine, TLS
		// downloads crawl and every latency is stretched: this measures
		// nothing there. Run it without -race.
		t.Skip("a latency measure: run without -race")
	}
	for name, tc := range h2Endpoints(t, fairnessApp) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			var mu sync.Mutex
			got := 0
			defer func() { cancel(); wg.Wait() }()
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req, _ := http.NewRequestWithContext(ctx, "GET", tc.base+"/download", nil)
					resp, err := tc.c.Do(req)
					if err != nil {
						return
					}
					defer resp.Body.Close()
					buf := make([]byte, 64<<10)
					for {
						n, err := resp.Body.Read(buf)
						mu.Lock()
						got += n
						mu.Unlock()
						if err != nil {
							return
						}
					}
				}()
			}
			waitFor(t, 30*time.Second, "the downloads flowing", func() bool { mu.Lock(); defer mu.Unlock(); return got > 8<<20 })
			var took []time.Duration
			for range 10 {
				start := time.Now()
				resp, err := tc.c.Get(tc.base + "/small")
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				body := string(b)
				took = append(took, time.Since(start))
				if resp.ProtoMajor != 2 || body != "small" {
					t.Fatalf("%s %q", resp.Proto, body)
				}
			}
			slices.Sort(took)
			median := took[len(took)/2]
			t.Logf("small GET beside 8 downloads: median %v, min %v, max %v", median, took[0], took[len(took)-1])
			if median > 50*time.Millisecond {
				t.Errorf("median %v > 50ms (all: %v)", median, took)
			}

			resp, err := tc.c.Get(tc.base + "/events")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			var at []time.Time
			for len(at) < 10 {
				line, err := br.ReadString('\n')
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasPrefix(line, "data: ") {
					at = append(at, time.Now())
				}
			}
			// Sent 20 ms apart: batched events would arrive together.
			var gaps []time.Duration
			for i := 1; i < len(at); i++ {
				gaps = append(gaps, at[i].Sub(at[i-1]))
			}
			slices.Sort(gaps)
			if g := gaps[len(gaps)/2]; g < 5*time.Millisecond {
				t.Errorf("events batched: median gap %v (gaps %v)", g, gaps)
			}
			_, _ = io.Copy(io.Discard, br)
		})
	}
}
