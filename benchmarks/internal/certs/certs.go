// Package certs makes the self-signed certificate that every benchmark
// server shares, so that all of them are measured with the same key type
// (ECDSA P-256) and the same certificate chain length.
package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Hosts lists the names and addresses the generated certificate is valid for.
var Hosts = []string{"127.0.0.1", "::1", "localhost"}

// Generate returns a fresh self-signed ECDSA P-256 certificate for Hosts,
// valid from one hour ago for one year, PEM-encoded, with its private key
// (PKCS#8, PEM-encoded).
func Generate() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("certs: generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, fmt.Errorf("certs: serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "gwist benchmark", Organization: []string{"gwist"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	for _, h := range Hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("certs: create certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("certs: marshal key: %w", err)
	}
	certPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	return certPEM, keyPEM, nil
}

// WriteFiles generates a certificate with Generate and writes it to
// dir/cert.pem and dir/key.pem (the key with mode 0600), returning both paths.
func WriteFiles(dir string) (certFile, keyFile string, err error) {
	certPEM, keyPEM, err := Generate()
	if err != nil {
		return "", "", err
	}
	certFile = filepath.Join(dir, "cert.pem")
	keyFile = filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o644); err != nil {
		return "", "", fmt.Errorf("certs: %w", err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		return "", "", fmt.Errorf("certs: %w", err)
	}
	return certFile, keyFile, nil
}

// Load reads a PEM certificate and key from files. When both names are
// empty it generates an in-memory pair instead; when only one is given it
// fails. The pair is checked to match before it is returned.
func Load(certFile, keyFile string) (certPEM, keyPEM []byte, err error) {
	switch {
	case certFile == "" && keyFile == "":
		certPEM, keyPEM, err = Generate()
		if err != nil {
			return nil, nil, err
		}
	case certFile == "" || keyFile == "":
		return nil, nil, errors.New("certs: -cert and -key must be given together")
	default:
		if certPEM, err = os.ReadFile(certFile); err != nil {
			return nil, nil, fmt.Errorf("certs: %w", err)
		}
		if keyPEM, err = os.ReadFile(keyFile); err != nil {
			return nil, nil, fmt.Errorf("certs: %w", err)
		}
	}
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		return nil, nil, fmt.Errorf("certs: %w", err)
	}
	return certPEM, keyPEM, nil
}
