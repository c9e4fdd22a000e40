//go:build linux

package main

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/haproxytest"
	"github.com/gwist/gwist/internal/testkit"
)

// The example run as a process with -proxy-protocol: headers written by
// hand on -addr and before TLS on -tls-addr; a trusted peer without a
// header is closed; then a real HAProxy in front of it (send-proxy-v2, its
// health check on /readyz through the same port), with the client on
// 127.0.0.2.

func TestProxyProtocolFlagProcess(t *testing.T) {
	addr, tlsAddr, health := testkit.FreeAddr(t), testkit.FreeAddr(t), testkit.FreeAddr(t)
	startHelloProcess(t, "http://"+health+"/readyz",
		"-addr", addr, "-tls-addr", tlsAddr, "-health-addr", health, "-proxy-protocol", "127.0.0.0/8")

	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := rawWhoami(t, c, "PROXY TCP4 203.0.113.70 127.0.0.1 50000 80\r\n"); got != "203.0.113.70:50000\n" {
		t.Fatalf("-addr /whoami %q", got)
	}

	nc, err := net.Dial("tcp", tlsAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := io.WriteString(nc, "PROXY TCP6 2001:db8::70 ::1 50001 443\r\n"); err != nil {
		t.Fatal(err)
	}
	tc := tls.Client(nc, &tls.Config{InsecureSkipVerify: true, NextProtos: []string{"http/1.1"}})
	if got := rawWhoami(t, tc, ""); got != "[2001:db8::70]:50001\n" {
		t.Fatalf("-tls-addr /whoami %q", got)
	}

	// A trusted peer that sends a request without a header: closed, no answer.
	c2, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	_ = c2.SetDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.WriteString(c2, "GET /whoami HTTP/1.1\r\nHost: x\r\n\r\n")
	if b, err := io.ReadAll(c2); len(b) != 0 || (err != nil && !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "reset")) {
		t.Fatalf("a request without a header got %q, %v", b, err)
	}
	// -health-addr does not read the PROXY protocol.
	resp, err := http.Get("http://" + health + "/whoami")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.HasPrefix(string(b), "127.0.0.1:") {
		t.Fatalf("-health-addr /whoami %q", b)
	}
}

func TestProxyProtocolHAProxyProcess(t *testing.T) {
	haproxytest.Require(t)
	addr, health := testkit.FreeAddr(t), testkit.FreeAddr(t)
	startHelloProcess(t, "http://"+health+"/readyz",
		"-addr", addr, "-health-addr", health, "-proxy-protocol", "127.0.0.1")
	hp := haproxytest.Start(t, haproxytest.HTTPDefaults+`
frontend fe
    bind {{.Frontend}}
    default_backend be
backend be
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 100ms fall 1 rise 1
    server s1 {{.Data}} send-proxy-v2 check
`, addr)
	hp.WaitServerState(t, "be", "s1", "UP", 5*time.Second)

	var local string
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
	tr := &http.Transport{DisableKeepAlives: true, DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, a)
		if err == nil {
			local = c.LocalAddr().String()
		}
		return c, err
	}}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 10 * time.Second}).Get("http://" + hp.Frontend + "/whoami")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != local+"\n" || !strings.HasPrefix(local, "127.0.0.2:") {
		t.Fatalf("/whoami through HAProxy: %d %q, want %q", resp.StatusCode, b, local+"\n")
	}
}
