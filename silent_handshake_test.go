package gwist_test

import (
	"crypto/tls"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

// holdSilent opens n connections that each send a whole ClientHello, wait
// (at most wait) for the server's first byte, then go silent. It returns
// them open; the caller closes them.
func holdSilent(t *testing.T, addr string, hello []byte, n int, wait time.Duration) []net.Conn {
	t.Helper()
	conns := make([]net.Conn, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16) // within the queue (16 × MaxHandshakes)
	for i := range conns {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := net.Dial("tcp", addr)
			if err != nil {
				t.Errorf("dial silent %d: %v", i, err)
				return
			}
			conns[i] = c
			if _, err := c.Write(hello); err != nil {
				return
			}
			_ = c.SetReadDeadline(time.Now().Add(wait))
			var b [1]byte
			_, _ = c.Read(b[:]) // the server's flight (or an alert, or a close)
		})
	}
	wg.Wait()
	return conns
}

// Clients that send a ClientHello and go silent park handshakes; past the
// parked bound the oldest is evicted, so live clients always get through
// and the goroutines held stay bounded. Before eviction, 2 computing + 32
// parked + 32 queued filled the limiter and every later client was refused
// (or queued behind the silent ones until the handshake timeout).
func TestSilentClientHellosDoNotStarveLiveClients(t *testing.T) {
	const (
		maxHS   = 2
		silentN = 400 // 6× what the limiter held before eviction
		liveN   = 20
	)
	app := helloApp(gwist.WithMaxHandshakes(maxHS), gwist.WithTLSHandshakeTimeout(time.Minute))
	addr := startTLS(t, app, serverTLSConfig(t))
	silent := holdSilent(t, addr, clientHello(t), silentN, 2*time.Second)
	defer func() {
		for _, c := range silent {
			if c != nil {
				c.Close()
			}
		}
	}()

	cfg := &tls.Config{ServerName: "localhost", RootCAs: getPKI(t).pool}
	tr := &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	var failed int
	var slowest time.Duration
	for i := 0; i < liveN; i++ {
		start := time.Now()
		resp, err := client.Get("https://" + addr + "/")
		if err != nil {
			failed++
			t.Logf("live client %d: %v", i, err)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			failed++
			t.Logf("live client %d: status %d", i, resp.StatusCode)
		}
		slowest = max(slowest, time.Since(start))
	}
	// A handshake takes about a millisecond here; a live client stuck
	// behind the silent ones waited for the one-minute handshake timeout.
	if failed > 0 || slowest > 2*time.Second {
		t.Fatalf("%d of %d live clients failed next to %d silent ones; slowest took %v; stats %+v",
			failed, liveN, silentN, slowest, app.Stats().TLS)
	}
	// Parked goroutines stay within MaxParked (16 × MaxHandshakes), plus
	// the computing ones; evicted ones exit promptly.
	bound := maxHS + 16*maxHS
	testkit.Eventually(5*time.Second, func() bool { return app.Stats().TLS.InFlight <= bound })
	st := app.Stats().TLS
	if st.InFlight > bound {
		t.Fatalf("%d handshake goroutines alive, bound %d", st.InFlight, bound)
	}
	if st.Failed["evicted"] == 0 || st.Failed["limiter_refused"] != 0 {
		t.Fatalf("evicted %d, refused %d: %+v", st.Failed["evicted"], st.Failed["limiter_refused"], st.Failed)
	}
}
