package testkit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"time"
)

// CA is a certificate authority made in memory, valid from an hour ago for
// a day.
type CA struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	// Pool holds Cert alone: a client's RootCAs, or a server's ClientCAs.
	Pool *x509.CertPool
	// DER is Cert's encoding (for CertPEM-like needs: PEM).
	DER []byte
}

// NewCA makes a CA whose certificate's common name is name.
func NewCA(name string) *CA {
	key := newKey()
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	der := must(x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key))
	cert := must(x509.ParseCertificate(der))
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &CA{Cert: cert, Key: key, Pool: pool, DER: der}
}

// Server issues a server certificate (ExtKeyUsageServerAuth) with common
// name cn for names: each one that parses as an IP address goes into the
// certificate's IP addresses, the others into its DNS names.
func (ca *CA) Server(cn string, names ...string) tls.Certificate {
	tmpl := &x509.Certificate{
		Subject:     pkix.Name{CommonName: cn},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	addNames(tmpl, names)
	return ca.Issue(tmpl)
}

// Client issues a client certificate (ExtKeyUsageClientAuth) with common
// name cn.
func (ca *CA) Client(cn string) tls.Certificate {
	return ca.Issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: cn},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
}

// Issue signs tmpl with the CA for a fresh key. A zero SerialNumber,
// NotBefore, NotAfter or KeyUsage is filled in (a random serial, valid
// from an hour ago for a day, digital signature).
func (ca *CA) Issue(tmpl *x509.Certificate) tls.Certificate {
	key := newKey()
	fill(tmpl)
	der := must(x509.CreateCertificate(rand.Reader, tmpl, ca.Cert, &key.PublicKey, ca.Key))
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: must(x509.ParseCertificate(der))}
}

// ClientConfig is a client's config that trusts the CA and expects
// serverName, offering nextProtos by ALPN.
func (ca *CA) ClientConfig(serverName string, nextProtos ...string) *tls.Config {
	return &tls.Config{RootCAs: ca.Pool, ServerName: serverName, NextProtos: nextProtos}
}

// PEM is the CA's certificate, PEM-encoded.
func (ca *CA) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: ca.DER})
}

// SelfSigned makes a self-signed server certificate for names (DNS names
// and IP addresses, as CA.Server; the first is also its common name),
// which is its own CA, and the pool that trusts it.
func SelfSigned(names ...string) (tls.Certificate, *x509.CertPool) {
	tmpl := &x509.Certificate{
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
	}
	if len(names) > 0 {
		tmpl.Subject.CommonName = names[0]
	}
	addNames(tmpl, names)
	return SelfSign(tmpl)
}

// SelfSign signs tmpl with a fresh key of its own, filling in what Issue
// fills in, and returns the certificate and a pool that trusts it.
func SelfSign(tmpl *x509.Certificate) (tls.Certificate, *x509.CertPool) {
	key := newKey()
	fill(tmpl)
	der := must(x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key))
	leaf := must(x509.ParseCertificate(der))
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// ServerConfig is a server's config with certs.
func ServerConfig(certs ...tls.Certificate) *tls.Config {
	return &tls.Config{Certificates: certs}
}

// CertPEM and KeyPEM encode a certificate made here (its chain, then its
// ECDSA key), for a server that reads files.
func CertPEM(c tls.Certificate) []byte {
	var out []byte
	for _, der := range c.Certificate {
		out = append(out, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})...)
	}
	return out
}

// KeyPEM: see CertPEM.
func KeyPEM(c tls.Certificate) []byte {
	der := must(x509.MarshalECPrivateKey(c.PrivateKey.(*ecdsa.PrivateKey)))
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}

func fill(tmpl *x509.Certificate) {
	if tmpl.SerialNumber == nil {
		tmpl.SerialNumber = serial()
	}
	now := time.Now()
	if tmpl.NotBefore.IsZero() {
		tmpl.NotBefore = now.Add(-time.Hour)
	}
	if tmpl.NotAfter.IsZero() {
		tmpl.NotAfter = now.Add(24 * time.Hour)
	}
	if tmpl.KeyUsage == 0 {
		tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	}
}

func newKey() *ecdsa.PrivateKey {
	return must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader))
}

func serial() *big.Int {
	return must(rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127)))
}

func must[T any](v T, err error) T {
	if err != nil {
		panic("testkit: " + err.Error())
	}
	return v
}

// addNames puts each of names that parses as an IP address into tmpl's IP
// addresses, the others into its DNS names.
func addNames(tmpl *x509.Certificate, names []string) {
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
}
