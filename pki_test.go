package gwist_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"
)

// testPKI is a CA with server certificates for two names and a client
// certificate, all made in memory.
type testPKI struct {
	pool            *x509.CertPool
	serverA         tls.Certificate // localhost, a.test, 127.0.0.1
	serverB         tls.Certificate // b.test
	client          tls.Certificate
	untrustedClient tls.Certificate
}

var (
	pkiOnce sync.Once
	pki     *testPKI
)

func getPKI(t testing.TB) *testPKI {
	pkiOnce.Do(func() {
		caKey, caCert := newCA(t)
		pool := x509.NewCertPool()
		pool.AddCert(caCert)
		otherKey, otherCert := newCA(t) // a CA the server does not trust
		pki = &testPKI{
			pool:    pool,
			serverA: leaf(t, caCert, caKey, "a.test", []string{"localhost", "a.test"}, true),
			serverB: leaf(t, caCert, caKey, "b.test", []string{"b.test"}, true),
			client:  leaf(t, caCert, caKey, "client", nil, false),
		}
		pki.untrustedClient = leaf(t, otherCert, otherKey, "intruder", nil, false)
	})
	return pki
}

func newCA(t testing.TB) (*ecdsa.PrivateKey, *x509.Certificate) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "gwist test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return key, cert
}

func leaf(t testing.TB, ca *x509.Certificate, caKey *ecdsa.PrivateKey, cn string, names []string, server bool) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	usage := x509.ExtKeyUsageClientAuth
	if server {
		usage = x509.ExtKeyUsageServerAuth
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		DNSNames:     names,
	}
	if server {
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}
