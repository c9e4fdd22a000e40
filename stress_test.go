package gwist_test

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// Many clients at once, over plaintext and TLS, with keep-alive, pipelining
// and clients that vanish mid-request: every answered request must get its
// own response, in order, and the server must end with no connection left.
// Run with -race this exercises the hand-offs between loops and workers.
func TestConcurrentClientsStress(t *testing.T) {
	app := gwist.New()
	app.GET("/n/:i", func(c *gwist.Ctx) error {
		if c.Param("i") == "slow" {
			time.Sleep(2 * time.Millisecond)
		}
		return c.String(200, c.Param("i"))
	})
	plain := startApp(t, app)
	secure := startTLS(t, app, serverTLSConfig(t))
	dials := map[string]func() (net.Conn, error){
		"plain": func() (net.Conn, error) { return net.Dial("tcp", plain) },
		"tls": func() (net.Conn, error) {
			return tls.Dial("tcp", secure, &tls.Config{RootCAs: getPKI(t).pool, ServerName: "localhost"})
		},
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for name, dial := range dials {
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(w), 7))
				for round := 0; round < 15; round++ {
					if err := stressRound(dial, rng); err != nil {
						errs <- fmt.Errorf("%s worker %d round %d: %w", name, w, round, err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	waitConns(t, app, 0)
}

// stressRound opens a connection, pipelines a few requests (some slow), reads
// the answers in order, and sometimes leaves without reading.
func stressRound(dial func() (net.Conn, error), rng *rand.Rand) error {
	c, err := dial()
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	n := 1 + rng.IntN(6)
	var sb strings.Builder
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprint(rng.IntN(1000))
		if rng.IntN(4) == 0 {
			want[i] = "slow"
		}
		fmt.Fprintf(&sb, "GET /n/%s HTTP/1.1\r\nHost: x\r\n\r\n", want[i])
	}
	if _, err := io.WriteString(c, sb.String()); err != nil {
		return err
	}
	if rng.IntN(5) == 0 {
		return nil // vanish with requests in flight
	}
	br := bufio.NewReader(c)
	for i, w := range want {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return fmt.Errorf("response %d: %w", i, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(b) != w {
			return fmt.Errorf("response %d = %q (%v), want %q", i, b, err, w)
		}
	}
	return nil
}
