package tlsstate_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"math/big"
	"net"
	"time"

	"github.com/gwist/gwist/tlsstate"
)

// A minimal engine: one goroutine owns the Conn and reacts to socket reads
// and to notify; it feeds ciphertext, processes, and writes what is
// pending. The server echoes what it decrypts.
func Example() {
	cert, roots := selfSigned("example.test")
	srv, err := tlsstate.NewServer(tlsstate.Config{
		TLS: &tls.Config{Certificates: []tls.Certificate{cert}, NextProtos: []string{"h2", "http/1.1"}},
	})
	if err != nil {
		panic(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer ln.Close()

	clientDone := make(chan struct{})
	go func() { // an ordinary crypto/tls client
		defer close(clientDone)
		c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{
			RootCAs: roots, ServerName: "example.test", NextProtos: []string{"h2", "http/1.1"},
		})
		if err != nil {
			panic(err)
		}
		c.Write([]byte("hello"))
		buf := make([]byte, 5)
		io.ReadFull(c, buf)
		fmt.Printf("client got %q\n", buf)
		c.Close() // sends close_notify
	}()

	nc, err := ln.Accept()
	if err != nil {
		panic(err)
	}
	defer nc.Close()
	reads := make(chan []byte)
	go func() { // stands in for the poller
		defer close(reads)
		for {
			b := make([]byte, 16<<10)
			n, err := nc.Read(b)
			if err != nil {
				return
			}
			reads <- b[:n]
		}
	}()

	wake := make(chan struct{}, 1)
	tc := srv.NewConn(func() { // from the handshake goroutine: never block
		select {
		case wake <- struct{}{}:
		default:
		}
	})
	defer tc.Release()
	plain := make([]byte, 0, 16<<10)
	for {
		select {
		case b, ok := <-reads:
			if !ok {
				return
			}
			if err := tc.Feed(b); err != nil {
				fmt.Println("feed:", err)
				return
			}
		case <-wake:
		}
		var err error
		plain, err = tc.Process(plain[:0])
		if len(plain) > 0 {
			in := tc.Info()
			fmt.Printf("server got %q over %s, ALPN %s\n", plain, tls.VersionName(in.Version), in.NegotiatedProtocol)
			tc.Write(plain)
			tc.MarkFirstResponse(time.Now())
		}
		if err == io.EOF {
			tc.CloseNotify() // answer the client's close_notify
		}
		if tc.HasOutbound() {
			nc.Write(tc.AppendOutbound(nil))
		}
		if err != nil {
			fmt.Println("server:", err, tc.State())
			break
		}
	}
	<-clientDone
	st := srv.Stats()
	fmt.Println("full handshakes:", st.Full, "by ALPN h2:", st.ByALPN["h2"])
	// Output:
	// server got "hello" over TLS 1.3, ALPN h2
	// client got "hello"
	// server: EOF closed
	// full handshakes: 1 by ALPN h2: 1
}

// selfSigned makes a throwaway ECDSA P-256 certificate for name.
func selfSigned(name string) (tls.Certificate, *x509.CertPool) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		DNSNames:     []string{name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	leaf, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}
