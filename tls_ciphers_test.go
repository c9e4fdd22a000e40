package gwist_test

import (
	"bufio"
	"crypto/tls"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The test certificate is ECDSA, so the ECDSA variants of the suites are the
// ones a handshake can otherwise agree on; RSA suites would fail for want of
// an RSA certificate whatever the default.
var (
	cbcSuites = []uint16{
		tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA,
		tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA,
	}
	aeadSuites = []uint16{
		tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
		tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
		tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	}
)

// handshake12 does a TLS 1.2 handshake offering only suite and, when it
// succeeds, one GET; it returns the negotiated suite.
func handshake12(t *testing.T, addr string, suite uint16) (uint16, error) {
	t.Helper()
	c, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: getPKI(t).pool, ServerName: "localhost",
		MinVersion: tls.VersionTLS12, MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{suite}})
	if err != nil {
		return 0, err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("%s: no response after the handshake: %v", tls.CipherSuiteName(suite), err)
	}
	resp.Body.Close()
	return c.ConnectionState().CipherSuite, nil
}

func TestTLSDefaultSuitesAreAEADWithForwardSecrecy(t *testing.T) {
	app := helloApp()
	cfg := serverTLSConfig(t)
	addr := startTLS(t, app, cfg)
	if cfg.CipherSuites != nil {
		t.Fatal("StartTLS modified the caller's Config")
	}
	for _, s := range cbcSuites {
		if _, err := handshake12(t, addr, s); err == nil {
			t.Errorf("default server accepted %s", tls.CipherSuiteName(s))
		} else {
			t.Logf("%s refused: %v", tls.CipherSuiteName(s), err)
		}
	}
	for _, s := range aeadSuites {
		got, err := handshake12(t, addr, s)
		if err != nil || got != s {
			t.Errorf("%s: negotiated %s, err %v", tls.CipherSuiteName(s), tls.CipherSuiteName(got), err)
		}
	}
}

func TestTLSExplicitSuitesAreHonoured(t *testing.T) {
	cfg := serverTLSConfig(t)
	cfg.CipherSuites = append([]uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA}, aeadSuites...)
	addr := startTLS(t, helloApp(), cfg)
	s := tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA
	if got, err := handshake12(t, addr, s); err != nil || got != s {
		t.Fatalf("explicit list with %s: negotiated %s, err %v", tls.CipherSuiteName(s), tls.CipherSuiteName(got), err)
	}
	// Not in the list: refused.
	if _, err := handshake12(t, addr, tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA); err == nil {
		t.Fatal("a suite outside the explicit list was accepted")
	}
}

// A Config returned by GetConfigForClient without CipherSuites gets the same
// default; one with its own list keeps it.
func TestTLSGetConfigForClientSuites(t *testing.T) {
	base := serverTLSConfig(t)
	addr := startTLS(t, helloApp(), &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		return base.Clone(), nil
	}})
	if _, err := handshake12(t, addr, tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA); err == nil {
		t.Fatal("Config from GetConfigForClient accepted a CBC suite by default")
	}
	if got, err := handshake12(t, addr, aeadSuites[0]); err != nil || got != aeadSuites[0] {
		t.Fatalf("AEAD suite through GetConfigForClient: %s, %v", tls.CipherSuiteName(got), err)
	}

	withList := serverTLSConfig(t)
	withList.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA}
	addr = startTLS(t, helloApp(), &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
		return withList, nil
	}})
	if _, err := handshake12(t, addr, tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA); err != nil {
		t.Fatalf("explicit list from GetConfigForClient not honoured: %v", err)
	}
}

// An external client: OpenSSL offering only ECDHE-ECDSA-AES128-SHA over
// TLS 1.2 fails against the default server and succeeds with a GCM suite.
func TestTLSDefaultSuitesOpenSSL(t *testing.T) {
	openssl, err := exec.LookPath("openssl")
	if err != nil {
		t.Skip("openssl not installed")
	}
	addr := startTLS(t, helloApp(), serverTLSConfig(t))
	run := func(cipher string) (string, error) {
		cmd := exec.Command(openssl, "s_client", "-connect", addr, "-tls1_2", "-cipher", cipher, "-servername", "localhost")
		cmd.Stdin = strings.NewReader("") // EOF on stdin: close after the handshake
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("ECDHE-ECDSA-AES128-SHA"); err == nil {
		t.Fatalf("openssl negotiated a CBC-SHA1 suite with the default server (%s)", cipherLine(out))
	}
	out, err := run("ECDHE-ECDSA-AES128-GCM-SHA256")
	if err != nil || cipherLine(out) != "ECDHE-ECDSA-AES128-GCM-SHA256" {
		t.Fatalf("openssl with a GCM suite: %v\n%s", err, out)
	}
}

// cipherLine returns the suite from s_client's "Cipher    : X" line.
func cipherLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok && strings.TrimSpace(k) == "Cipher" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
