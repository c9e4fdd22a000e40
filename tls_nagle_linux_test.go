package gwist_test

// The delayed-ACK stall and TCP_QUICKACK are Linux behaviour: elsewhere
// QuickAck is a no-op and the stall's length differs, so this test runs on
// Linux only.

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"sort"
	"testing"
	"time"

	"github.com/gwist/gwist"
)

// firstResponseDelays makes n sequential TLS 1.3 connections from a client
// that leaves Nagle on and returns, sorted, the time from the end of each
// handshake to the first byte of its response.
func firstResponseDelays(t *testing.T, addr string, n int) []time.Duration {
	var out []time.Duration
	for i := 0; i < n; i++ {
		tcp, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := tcp.(*net.TCPConn).SetNoDelay(false); err != nil {
			t.Fatal(err)
		}
		tc := tls.Client(tcp, &tls.Config{RootCAs: getPKI(t).pool, ServerName: "localhost",
			MinVersion: tls.VersionTLS13})
		_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
		if err := tc.Handshake(); err != nil {
			t.Fatal(err)
		}
		done := time.Now()
		io.WriteString(tc, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		br := bufio.NewReader(tc)
		if _, err := br.ReadByte(); err != nil {
			t.Fatal(err)
		}
		out = append(out, time.Since(done))
		tc.Close()
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// The headline: a Nagle client's first request is answered right after the
// handshake. With the re-arm off the same client waits for the delayed-ACK
// timer, which shows this test can see the stall. (40 ms against < 1 ms: a
// behavioural check with a wide margin, not a benchmark.)
func TestNagleClientGetsFirstResponseWithoutDelayedACKStall(t *testing.T) {
	on := helloApp()
	p50 := firstResponseDelays(t, startTLS(t, on, serverTLSConfig(t)), 30)[15]
	if p50 >= 10*time.Millisecond {
		t.Errorf("QuickAck on: p50 first response %v after the handshake, want well under 10ms", p50)
	}
	off := helloApp(gwist.WithQuickAck(false))
	offP50 := firstResponseDelays(t, startTLS(t, off, serverTLSConfig(t)), 30)[15]
	if offP50 < 30*time.Millisecond {
		t.Errorf("QuickAck off: p50 %v; expected the ~40ms delayed-ACK stall (is the test blind?)", offP50)
	}
	t.Logf("p50 request-after-handshake: QuickAck on %v, off %v", p50, offP50)
}
