package tlsstate

import (
	"crypto/tls"
	"testing"
)

// BenchmarkHandshakeTLS13 measures a full TLS 1.3 handshake (ECDSA P-256,
// both sides in this process, polling pump).
func BenchmarkHandshakeTLS13(b *testing.B) {
	s := newServer(b, Config{})
	cc := clientTLS(b)
	cc.MinVersion = tls.VersionTLS13
	b.ReportAllocs()
	for b.Loop() {
		_, c, m := handshakeByHand(b, s, cc)
		c.Release()
		m.Close()
	}
}

// BenchmarkProcessIdle is the cost of a Process call with nothing to read.
func BenchmarkProcessIdle(b *testing.B) {
	s := newServer(b, Config{})
	_, c, _ := handshakeByHand(b, s, clientTLS(b))
	plain := make([]byte, 0, 16<<10)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if plain, err = c.Process(plain[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRoundtrip1K: the client sends 1 KiB, the Conn decrypts it and
// encrypts a 1 KiB reply, the client reads it. Includes the client's work.
func BenchmarkRoundtrip1K(b *testing.B) {
	s := newServer(b, Config{})
	cli, c, m := handshakeByHand(b, s, clientTLS(b))
	msg := make([]byte, 1024)
	reply := make([]byte, 1024)
	plain := make([]byte, 0, 16<<10)
	var out []byte
	b.SetBytes(2 * 1024)
	b.ReportAllocs()
	for b.Loop() {
		cli.Write(msg)
		if err := c.Feed(m.take()); err != nil {
			b.Fatal(err)
		}
		var err error
		if plain, err = c.Process(plain[:0]); err != nil || len(plain) != len(msg) {
			b.Fatal(len(plain), err)
		}
		if err := c.Write(reply); err != nil {
			b.Fatal(err)
		}
		out = c.AppendOutbound(out[:0])
		m.give(out)
		for got := 0; got < len(reply); {
			n, err := cli.Read(msg[:cap(msg)])
			if err != nil {
				b.Fatal(err)
			}
			got += n
		}
	}
}

// BenchmarkWrite48K and BenchmarkSeal48K encrypt what the engine seals per
// write (three records): through the outbound queue (Write, then
// AppendOutbound, a record at a time), and straight into the caller's
// buffer (Seal).
func BenchmarkWrite48K(b *testing.B) { benchSeal(b, false) }
func BenchmarkSeal48K(b *testing.B)  { benchSeal(b, true) }

func benchSeal(b *testing.B, direct bool) {
	s := newServer(b, Config{TLS: serverTLS(b)})
	_, c, _ := handshakeByHand(b, s, clientTLS(b))
	defer c.Release()
	plain := make([]byte, 3*(16<<10-64))
	out := make([]byte, 0, 64<<10)
	b.SetBytes(int64(len(plain)))
	b.ReportAllocs()
	for b.Loop() {
		if direct {
			var err error
			if out, err = c.Seal(out[:0], plain); err != nil {
				b.Fatal(err)
			}
			continue
		}
		out = out[:0]
		for p := plain; len(p) > 0; p = p[16<<10-64:] { // a record at a time: the queue's buffer holds one
			if err := c.Write(p[:16<<10-64]); err != nil {
				b.Fatal(err)
			}
			out = c.AppendOutbound(out)
		}
	}
}
