package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
)

func TestParseTrustedProxies(t *testing.T) {
	got, err := parseTrustedProxies(" 127.0.0.1, 10.0.0.0/8,,::1 ")
	want := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"localhost", "10.0.0.0/33", "1.2.3"} {
		if _, err := parseTrustedProxies(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if got, err := parseTrustedProxies(""); got != nil || err != nil {
		t.Fatalf("empty: %v %v", got, err)
	}
}

// startWhoami serves the example's routes with the listener options opts.
func startWhoami(t *testing.T, opts ...gwist.ListenOption) string {
	t.Helper()
	app := gwist.New()
	routes(app)
	healthRoutes(app)
	whoamiRoute(app)
	addr := testkit.Serve(t, func() (net.Addr, error) { return app.Start("127.0.0.1:0", opts...) }, app.Shutdown)
	return addr
}

// TestWhoami: without the PROXY protocol, the client's own address.
func TestWhoami(t *testing.T) {
	addr := startWhoami(t)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if got := rawWhoami(t, c, ""); got != c.LocalAddr().String()+"\n" {
		t.Fatalf("/whoami %q, want %q", got, c.LocalAddr().String()+"\n")
	}
}

// TestWhoamiProxied: with ProxyProtocol (as -proxy-protocol sets it), the
// address in a v1 or v2 header written by hand.
func TestWhoamiProxied(t *testing.T) {
	addr := startWhoami(t, gwist.ProxyProtocol(netip.MustParsePrefix("127.0.0.1/32")))
	for _, tc := range []struct{ header, want string }{
		{"PROXY TCP4 198.51.100.1 127.0.0.1 44444 80\r\n", "198.51.100.1:44444\n"},
		{"\r\n\r\n\x00\r\nQUIT\n\x21\x21\x00\x24" +
			"\x20\x01\x0d\xb8\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x05" + // 2001:db8::5
			"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01" + // ::1
			"\xad\x9c\x01\xbb", "[2001:db8::5]:44444\n"},
	} {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := rawWhoami(t, c, tc.header); got != tc.want {
			t.Fatalf("/whoami %q, want %q", got, tc.want)
		}
		c.Close()
	}
}

// rawWhoami writes header and GET /whoami on c and returns the body.
func rawWhoami(t *testing.T, c net.Conn, header string) string {
	t.Helper()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, header+"GET /whoami HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("%d %v %q", resp.StatusCode, resp.Header, b)
	}
	return string(b)
}
