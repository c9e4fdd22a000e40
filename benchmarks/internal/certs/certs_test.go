package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
)

func TestGenerateIsP256ForLoopback(t *testing.T) {
	certPEM, keyPEM, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(pair.Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	pub, ok := leaf.PublicKey.(*ecdsa.PublicKey)
	if !ok || pub.Curve != elliptic.P256() {
		t.Fatalf("public key is %T, want ECDSA P-256", leaf.PublicKey)
	}
	for _, h := range []string{"127.0.0.1", "localhost"} {
		if err := leaf.VerifyHostname(h); err != nil {
			t.Errorf("VerifyHostname(%q): %v", h, err)
		}
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, DNSName: "localhost"}); err != nil {
		t.Errorf("self-verify: %v", err)
	}
}

func TestWriteFilesThenLoad(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, err := WriteFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key mode %v, want 0600", fi.Mode().Perm())
	}
	c1, k1, err := Load(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	c2, _ := os.ReadFile(certFile)
	if string(c1) != string(c2) || len(k1) == 0 {
		t.Error("Load did not return the file contents")
	}
}

func TestLoadErrors(t *testing.T) {
	if _, _, err := Load("x.pem", ""); err == nil {
		t.Error("Load with only -cert: want error")
	}
	if _, _, err := Load(filepath.Join(t.TempDir(), "none"), "none"); err == nil {
		t.Error("Load of missing files: want error")
	}
	dir := t.TempDir()
	c1, _, _ := WriteFiles(dir)
	other := t.TempDir()
	_, k2, _ := WriteFiles(other)
	if _, _, err := Load(c1, k2); err == nil {
		t.Error("Load of mismatched pair: want error")
	}
	if c, k, err := Load("", ""); err != nil || len(c) == 0 || len(k) == 0 {
		t.Errorf("Load(\"\", \"\") = %d, %d bytes, %v; want a generated pair", len(c), len(k), err)
	}
}
