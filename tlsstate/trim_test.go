package tlsstate

import (
	"strings"
	"testing"
)

// TestTrimBuffersReleases checks that an idle established connection gives
// up crypto/tls's read buffers and keeps working afterwards. It also fails
// when a Go release moves the fields TrimBuffers relies on.
func TestTrimBuffersReleases(t *testing.T) {
	if ok, why := BufferReach(); !ok {
		t.Fatalf("the reach into crypto/tls's buffers is off (%s): TrimBuffers is a no-op", why)
	}
	e := newEnv(t, Config{})
	cli, l, err := e.dial(clientTLS(t))
	if err != nil {
		t.Fatal(err)
	}
	echo(t, cli, "before trim")
	var trimmed, again bool
	l.do(func(c *Conn) {
		trimmed = c.TrimBuffers()
		again = c.TrimBuffers()
	})
	if !trimmed {
		t.Fatal("TrimBuffers released nothing on an idle established connection")
	}
	if again {
		t.Error("a second TrimBuffers reported releasing buffers again")
	}
	// Records of every size still decrypt after the buffers are gone.
	echo(t, cli, "after trim")
	echo(t, cli, strings.Repeat("x", 40<<10))
	l.do(func(c *Conn) { trimmed = c.TrimBuffers() })
	if !trimmed {
		t.Error("buffers regrown by reads were not released")
	}
	echo(t, cli, "and again")
}

func TestTrimBuffersBeforeHandshake(t *testing.T) {
	e := newEnv(t, Config{})
	raw, l := e.dialRaw()
	if _, err := raw.Write(captureHello(t, clientTLS(t))[:20]); err != nil {
		t.Fatal(err)
	}
	var trimmed bool
	l.do(func(c *Conn) { trimmed = c.TrimBuffers() })
	if trimmed {
		t.Error("TrimBuffers acted on a connection still awaiting its ClientHello")
	}
}

// Decrypting a record must not end with a Read of crypto/tls that can only
// block: each such Read allocates (crypto/tls wraps the transport in a new
// reader per call). One allocation per record is crypto/tls's own, for the
// record's first read; a second means the drained check failed.
func TestProcessOneRecordAllocatesOnce(t *testing.T) {
	s := newServer(t, Config{})
	cli, c, m := handshakeByHand(t, s, clientTLS(t))
	const runs = 50
	records := make([][]byte, runs+1) // AllocsPerRun calls the function once more to warm up
	for i := range records {
		if _, err := cli.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		records[i] = m.take()
	}
	plain := make([]byte, 0, 16<<10)
	next := 0
	allocs := testing.AllocsPerRun(runs, func() {
		if err := c.Feed(records[next]); err != nil {
			t.Fatal(err)
		}
		next++
		var err error
		if plain, err = c.Process(plain[:0]); err != nil || !strings.HasPrefix(string(plain), "GET / ") {
			t.Fatalf("Process: %q, %v", plain, err)
		}
	})
	if allocs > 1 {
		t.Errorf("%v allocations to feed and decrypt one record, want at most 1", allocs)
	}
}
