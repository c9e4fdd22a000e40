package gwist_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/haproxytest"
)

// A real HAProxy in front of an App, sending the PROXY protocol: the
// client connects to HAProxy from 127.0.0.2, and /whoami must say
// 127.0.0.2 with the client's own port.

// clientFrom127002 is an HTTP client whose connections leave from
// 127.0.0.2; local records each connection's local address.
type clientFrom127002 struct {
	*http.Client
	mu    sync.Mutex
	local []string
}

func newClientFrom127002(t *testing.T, tlsConf *tls.Config) *clientFrom127002 {
	c := &clientFrom127002{}
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := d.DialContext(ctx, network, addr)
		if err == nil {
			c.mu.Lock()
			c.local = append(c.local, nc.LocalAddr().String())
			c.mu.Unlock()
		}
		return nc, err
	}
	tr := &http.Transport{DialContext: dial, TLSClientConfig: tlsConf, DisableKeepAlives: true}
	t.Cleanup(tr.CloseIdleConnections)
	c.Client = &http.Client{Transport: tr, Timeout: 10 * time.Second}
	return c
}

func (c *clientFrom127002) lastLocal() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.local[len(c.local)-1]
}

func (c *clientFrom127002) whoami(t *testing.T, url string) string {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %q %v", url, resp.StatusCode, b, err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

func TestProxyProtocolBehindHAProxy(t *testing.T) {
	haproxytest.Require(t)
	if c, err := net.DialTCP("tcp", &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}); err == nil {
		c.Close()
	} else if !strings.Contains(err.Error(), "refused") {
		t.Skipf("cannot bind a client to 127.0.0.2: %v", err)
	}
	for _, tc := range []struct {
		name, send string
	}{
		{"v2 with crc32c and unique-id", "send-proxy-v2 proxy-v2-options crc32c,unique-id"},
		{"v1", "send-proxy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := whoamiApp(nil)
			backend := startProxied(t, app, loopback)
			hp := haproxytest.Start(t, haproxytest.HTTPDefaults+`
frontend fe
    bind {{.Frontend}}
    unique-id-format %{+X}o\ %ci:%cp_%fi:%fp_%Ts_%rt
    default_backend be
backend be
    option httpchk GET /whoami
    default-server inter 100ms fall 1 rise 1
    server s1 {{.Data.Backend}} {{.Data.Send}} check
`, map[string]string{"Backend": backend, "Send": tc.send})
			// Its health checks, with their own header, find the server.
			hp.WaitServerState(t, "be", "s1", "UP", 5*time.Second)
			client := newClientFrom127002(t, nil)
			for range 3 {
				got := client.whoami(t, "http://"+hp.Frontend+"/whoami")
				if want := client.lastLocal(); got != want {
					t.Fatalf("/whoami through HAProxy: %q, want the client's %q", got, want)
				}
				if got := client.whoami(t, "http://"+hp.Frontend+"/whoami-nethttp"); !strings.HasPrefix(got, "127.0.0.2:") {
					t.Fatalf("r.RemoteAddr through HAProxy: %q", got)
				}
			}
			st := app.Stats().Proxy
			t.Logf("gwist's PROXY stats: %+v", st)
			if st.Accepted < 6 || st.Errors() != 0 {
				t.Fatalf("stats %+v", st)
			}
		})
	}

	// TCP mode in front of a TLS listener: the client's TLS runs end to end
	// through HAProxy, after the header.
	t.Run("v2 before TLS, tcp mode", func(t *testing.T) {
		app := whoamiApp(nil, gwist.WithHTTP2(true))
		backend := startProxiedTLS(t, app, loopback)
		hp := haproxytest.Start(t, `
defaults
    mode tcp
    timeout connect 2s
    timeout client 10s
    timeout server 10s
frontend fe
    bind {{.Frontend}}
    default_backend be
backend be
    server s1 {{.Data}} send-proxy-v2
`, backend)
		client := newClientFrom127002(t, &tls.Config{RootCAs: getPKI(t).pool, ServerName: "a.test"})
		got := client.whoami(t, "https://"+hp.Frontend+"/whoami-tls")
		if want := client.lastLocal() + " true"; got != want {
			t.Fatalf("/whoami-tls through HAProxy: %q, want %q", got, want)
		}
		// (Start's probe of the frontend was relayed too: at least 1.)
		if st := app.Stats().Proxy; st.Accepted < 1 || st.Errors() != 0 {
			t.Fatalf("stats %+v", st)
		}
	})
}
