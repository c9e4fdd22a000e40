package tlsstate

import (
	"strings"
	"testing"
)

// TestTrimBuffersReleases checks that an idle established connection gives
// up crypto/tls's read buffers and keeps working afterwards. It also fails
// when a Go release moves the fields TrimBuffers relies on.
func TestTrimBuffersReleases(t *testing.T) {
	if !tlsBufferFields.ok {
		t.Fatal("crypto/tls.Conn no longer has rawInput/input/hand as bytes.Buffer/Reader: TrimBuffers is a no-op")
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
