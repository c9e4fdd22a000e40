package tlsstate

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/asn1"
	"math/big"
	"testing"
	"time"

	"crypto/x509/pkix"

	"github.com/gwist/gwist/internal/testkit"
)

// A client flight larger than MaxBuffered (a 60 KB client certificate)
// needs the loop to feed in steps while the goroutine reads: notify must
// tell the loop when room was made, or the handshake stalls.
func TestClientFlightLargerThanBuffer(t *testing.T) {
	clientCert, _ := testkit.SelfSign(&x509.Certificate{
		SerialNumber: big.NewInt(9),
		Subject:      pkix.Name{CommonName: "big-client"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		ExtraExtensions: []pkix.Extension{{
			Id:    asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 55555, 1},
			Value: bytes.Repeat([]byte{0x42}, 60000),
		}},
	})
	der := clientCert.Certificate[0]
	if len(der) <= MaxBuffered {
		t.Fatalf("certificate only %d bytes", len(der))
	}
	scfg := serverTLS(t)
	scfg.ClientAuth = tls.RequireAnyClientCert
	e := newEnv(t, Config{TLS: scfg, HandshakeTimeout: 5 * time.Second})
	cc := clientTLS(t)
	cc.Certificates = []tls.Certificate{clientCert}
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		cc.MaxVersion = v
		cli, l, err := e.dial(cc)
		if err != nil {
			t.Fatalf("%s: %v", tls.VersionName(v), err)
		}
		echo(t, cli, "big")
		l.do(func(c *Conn) {
			if pc := c.Info().PeerCertificates; len(pc) != 1 || pc[0].Subject.CommonName != "big-client" {
				t.Errorf("peer certs %v", pc)
			}
		})
		cli.Close()
	}
}

// Application data that a TLS 1.3 client sends right behind its Finished,
// fed in the same chunk, is read by the handshake goroutine into
// crypto/tls's buffer; Process must still deliver it once established.
func TestDataPipelinedAfterFinished(t *testing.T) {
	s := newServer(t, Config{})
	m := newMemConn()
	defer m.Close()
	cc := clientTLS(t)
	cc.MinVersion = tls.VersionTLS13
	cli := tls.Client(m, cc)
	notify, wake := notifier()
	c := s.NewConn(notify)
	defer c.Release()
	errc := make(chan error, 1)
	go func() { errc <- cli.Handshake() }()

	waitFor(t, "ClientHello", func() bool {
		m.mu.Lock()
		defer m.mu.Unlock()
		return len(m.toServer) > 0
	})
	if err := c.Feed(m.take()); err != nil {
		t.Fatal(err)
	}
	waitNotify(t, wake)
	m.give(c.AppendOutbound(nil))
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if _, err := cli.Write([]byte("right behind Finished")); err != nil {
		t.Fatal(err)
	}
	if err := c.Feed(m.take()); err != nil { // Finished + application data
		t.Fatal(err)
	}
	waitNotify(t, wake)
	plain, err := c.Process(nil)
	if err != nil || string(plain) != "right behind Finished" {
		t.Fatalf("Process = %q, %v", plain, err)
	}
	if c.State() != Established {
		t.Fatalf("state %v", c.State())
	}
}
