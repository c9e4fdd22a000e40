package gwist_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist"
	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/middleware"
)

// The PROXY protocol through real sockets: headers written by hand on raw
// TCP, then HTTP (or TLS, then HTTP) on the same connection.

var (
	loopback = netip.MustParsePrefix("127.0.0.0/8")
	// elsewhere is trusted in the rejection tests: it excludes 127.0.0.1,
	// the test clients' address, which makes them untrusted.
	elsewhere = netip.MustParsePrefix("10.0.0.0/8")
)

// whoamiApp answers GET /whoami with c.RemoteAddr() and GET /whoami-nethttp
// with a wrapped net/http handler's r.RemoteAddr, behind the access log
// (written to log, when given).
func whoamiApp(log io.Writer, opts ...gwist.Option) *gwist.App {
	if log == nil {
		log = io.Discard
	}
	app := gwist.New(append([]gwist.Option{gwist.WithLogger(slog.New(slog.NewTextHandler(log, nil)))}, opts...)...)
	app.Use(middleware.AccessLog(nil))
	app.GET("/whoami", func(c *gwist.Ctx) error { return c.String(200, c.RemoteAddr().String()+"\n") })
	app.GET("/whoami-nethttp", gwist.WrapHandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.RemoteAddr+"\n")
	}))
	app.GET("/whoami-tls", func(c *gwist.Ctx) error {
		return c.String(200, fmt.Sprintf("%s %v\n", c.RemoteAddr(), c.TLS() != nil))
	})
	return app
}

// startProxied starts app's plaintext listener with ProxyProtocol(trusted...).
func startProxied(t *testing.T, app *gwist.App, trusted ...netip.Prefix) string {
	t.Helper()
	return testkit.Serve(t, func() (net.Addr, error) { return app.Start("127.0.0.1:0", gwist.ProxyProtocol(trusted...)) }, app.Shutdown)
}

func startProxiedTLS(t *testing.T, app *gwist.App, trusted ...netip.Prefix) string {
	t.Helper()
	cfg := serverTLSConfig(t)
	return testkit.Serve(t, func() (net.Addr, error) { return app.StartTLS("127.0.0.1:0", cfg, gwist.ProxyProtocol(trusted...)) }, app.Shutdown)
}

// ppV2 builds a version 2 header: signature, version/command, family/
// transport, length, then the address block and TLVs.
func ppV2(verCmd, famProto byte, parts ...[]byte) []byte {
	var body []byte
	for _, p := range parts {
		body = append(body, p...)
	}
	h := append([]byte("\r\n\r\n\x00\r\nQUIT\n"), verCmd, famProto, byte(len(body)>>8), byte(len(body)))
	return append(h, body...)
}

// ppTCP4 is the AF_INET block for src -> dst.
func ppTCP4(src, dst string) []byte {
	s, d := netip.MustParseAddrPort(src), netip.MustParseAddrPort(dst)
	b := append(s.Addr().AsSlice(), d.Addr().AsSlice()...)
	return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(b, s.Port()), d.Port())
}

func ppTCP6(src, dst string) []byte {
	s, d := netip.MustParseAddrPort(src), netip.MustParseAddrPort(dst)
	b := append(s.Addr().AsSlice(), d.Addr().AsSlice()...)
	return binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint16(b, s.Port()), d.Port())
}

func ppTLV(typ byte, val string) []byte {
	return append([]byte{typ, byte(len(val) >> 8), byte(len(val))}, val...)
}

// ppWithCRC appends a CRC32C TLV (type 0x03) and fills it in as a sender does.
func ppWithCRC(h []byte) []byte {
	h = append(h, 0x03, 0, 4, 0, 0, 0, 0)
	binary.BigEndian.PutUint16(h[14:16], uint16(len(h)-16))
	binary.BigEndian.PutUint32(h[len(h)-4:], crc32.Checksum(h, crc32.MakeTable(crc32.Castagnoli)))
	return h
}

// whoami sends GET path on r and returns the body.
func (r *rawConn) whoami(path string) string {
	r.t.Helper()
	r.send("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n")
	resp, body := r.readResponse("GET")
	if resp.StatusCode != 200 {
		r.t.Fatalf("GET %s: %d %q", path, resp.StatusCode, body)
	}
	return strings.TrimSuffix(body, "\n")
}

func TestProxyProtocolV1(t *testing.T) {
	var log syncBuffer
	app := whoamiApp(&log)
	addr := startProxied(t, app, loopback)
	for _, tc := range []struct{ header, want string }{
		{"PROXY TCP4 203.0.113.7 127.0.0.1 40001 80\r\n", "203.0.113.7:40001"},
		{"PROXY TCP6 2001:db8::7 ::1 40002 443\r\n", "[2001:db8::7]:40002"},
		// HAProxy's form for an IPv4 client on a TCP6 line: shown as IPv4.
		{"PROXY TCP6 ::ffff:198.51.100.3 ::ffff:127.0.0.1 40003 80\r\n", "198.51.100.3:40003"},
	} {
		r := dialRaw(t, addr)
		r.send(tc.header)
		if got := r.whoami("/whoami"); got != tc.want {
			t.Fatalf("%q: /whoami says %q, want %q", tc.header, got, tc.want)
		}
		// The next request of the keep-alive connection, and a net/http
		// handler's r.RemoteAddr, see the same.
		if got := r.whoami("/whoami-nethttp"); got != tc.want {
			t.Fatalf("%q: r.RemoteAddr %q, want %q", tc.header, got, tc.want)
		}
	}
	// UNKNOWN: accepted, the connection's own address applies.
	r := dialRaw(t, addr)
	r.send("PROXY UNKNOWN\r\n")
	if got, own := r.whoami("/whoami"), r.c.LocalAddr().String(); got != own {
		t.Fatalf("UNKNOWN: /whoami %q, want the connection's own %q", got, own)
	}
	if !strings.Contains(log.String(), "remote=203.0.113.7:40001") {
		t.Fatalf("the access log does not show the proxied address:\n%s", log.String())
	}
	st := app.Stats().Proxy
	if st.Accepted != 3 || st.Local != 1 || st.Errors() != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestProxyProtocolV2(t *testing.T) {
	app := whoamiApp(nil)
	addr := startProxied(t, app, loopback)
	for _, tc := range []struct {
		name   string
		header []byte
		want   string // "" for the connection's own address
	}{
		{"tcp4", ppV2(0x21, 0x11, ppTCP4("203.0.113.9:51000", "127.0.0.1:80")), "203.0.113.9:51000"},
		{"tcp6", ppV2(0x21, 0x21, ppTCP6("[2001:db8::9]:51001", "[::1]:443")), "[2001:db8::9]:51001"},
		{"tlvs and crc32c", ppWithCRC(ppV2(0x21, 0x11, ppTCP4("203.0.113.10:51002", "127.0.0.1:80"),
			ppTLV(0x01, "h2"), ppTLV(0x02, "www.example.com"), ppTLV(0x05, "unique-1"), ppTLV(0x04, "\x00\x00"),
			ppTLV(0x20, "\x01\x00\x00\x00\x00"+string(ppTLV(0x21, "TLSv1.3"))), ppTLV(0xe3, "custom"), ppTLV(0xf9, "future"))),
			"203.0.113.10:51002"},
		{"local (health check)", ppV2(0x20, 0x00), ""},
		{"local with an address block", ppV2(0x20, 0x11, ppTCP4("203.0.113.11:1", "127.0.0.1:2")), ""},
		{"AF_UNSPEC", ppV2(0x21, 0x00), ""},
		{"AF_UNIX", ppV2(0x21, 0x31, make([]byte, 216)), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := dialRaw(t, addr)
			r.send(string(tc.header))
			want := tc.want
			if want == "" {
				want = r.c.LocalAddr().String()
			}
			if got := r.whoami("/whoami"); got != want {
				t.Fatalf("/whoami %q, want %q", got, want)
			}
		})
	}
	st := app.Stats().Proxy
	if st.Accepted != 3 || st.Local != 4 || st.Errors() != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestProxyProtocolSplitHeader: the header and the request are written a
// few bytes at a time; the header is parsed as its bytes arrive. (That
// each piece is a read of its own is certain only in
// engine.TestProxyHeaderSplitAcrossReads, on the engine's harness.)
func TestProxyProtocolSplitHeader(t *testing.T) {
	addr := startProxied(t, whoamiApp(nil), loopback)
	for _, h := range [][]byte{
		[]byte("PROXY TCP4 203.0.113.12 127.0.0.1 52000 80\r\n"),
		ppV2(0x21, 0x11, ppTCP4("203.0.113.13:52001", "127.0.0.1:80"), ppTLV(0x02, "example.com")),
	} {
		r := dialRaw(t, addr)
		msg := append(h, "GET /whoami HTTP/1.1\r\nHost: x\r\n\r\n"...)
		for i := 0; i < len(msg); i += 5 {
			r.send(string(msg[i:min(i+5, len(msg))]))
		}
		resp, body := r.readResponse("GET")
		if want := "203.0.113.1"; resp.StatusCode != 200 || !strings.HasPrefix(body, want) {
			t.Fatalf("%d %q", resp.StatusCode, body)
		}
	}
}

// dialProxiedTLS connects, sends header in the clear, then runs a TLS
// client on the same socket.
func dialProxiedTLS(t *testing.T, addr string, header []byte, nextProtos ...string) *tls.Conn {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := nc.Write(header); err != nil {
		t.Fatal(err)
	}
	tc := tls.Client(nc, &tls.Config{RootCAs: getPKI(t).pool, ServerName: "a.test", NextProtos: nextProtos})
	if err := tc.Handshake(); err != nil {
		t.Fatalf("TLS handshake after the header: %v", err)
	}
	return tc
}

func TestProxyProtocolTLS(t *testing.T) {
	app := whoamiApp(nil)
	addr := startProxiedTLS(t, app, loopback)
	for _, tc := range []struct {
		header []byte
		want   string
	}{
		{[]byte("PROXY TCP4 203.0.113.20 127.0.0.1 53000 443\r\n"), "203.0.113.20:53000 true"},
		{ppV2(0x21, 0x11, ppTCP4("203.0.113.21:53001", "127.0.0.1:443"), ppTLV(0x01, "http/1.1")), "203.0.113.21:53001 true"},
	} {
		tc2 := dialProxiedTLS(t, addr, tc.header)
		r := &rawConn{t: t, c: tc2, br: bufio.NewReader(tc2)}
		for range 2 { // keep-alive: the second request too
			if got := r.whoami("/whoami-tls"); got != tc.want {
				t.Fatalf("/whoami-tls %q, want %q", got, tc.want)
			}
		}
	}
	if st := app.Stats(); st.Proxy.Accepted != 2 || st.TLS.Full != 2 {
		t.Fatalf("proxy %+v, TLS full handshakes %d", st.Proxy, st.TLS.Full)
	}
}

// TestProxyProtocolHTTP2: an h2 client behind a header (ALPN h2 over TLS,
// as HAProxy in TCP mode relays it): every stream sees the proxied address.
func TestProxyProtocolHTTP2(t *testing.T) {
	app := whoamiApp(nil, gwist.WithHTTP2(true))
	addr := startProxiedTLS(t, app, loopback)
	tr := &http.Transport{
		ForceAttemptHTTP2: true,
		DialTLSContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialProxiedTLS(t, addr, []byte("PROXY TCP6 2001:db8::20 ::1 54000 443\r\n"), "h2"), nil
		},
	}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for _, path := range []string{"/whoami", "/whoami-nethttp"} {
		resp, body := get(t, client, "https://a.test"+path)
		if resp.ProtoMajor != 2 || body != "[2001:db8::20]:54000\n" {
			t.Fatalf("%s: %s %q", path, resp.Proto, body)
		}
	}
}

// TestProxyProtocolH2C: h2c by prior knowledge after the header.
func TestProxyProtocolH2C(t *testing.T) {
	app := whoamiApp(nil, gwist.WithHTTP2(true))
	addr := startProxied(t, app, loopback)
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	tr := &http.Transport{Protocols: &p, DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			_, err = c.Write(ppV2(0x21, 0x21, ppTCP6("[2001:db8::21]:54001", "[::1]:80")))
		}
		return c, err
	}}
	t.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	for range 2 {
		resp, body := get(t, client, "http://x/whoami")
		if resp.ProtoMajor != 2 || body != "[2001:db8::21]:54001\n" {
			t.Fatalf("%s %q", resp.Proto, body)
		}
	}
}

// expectRefused checks that what was sent on r closed the connection
// without a byte of response, that counter reached 1, and that a
// well-formed request on a fresh connection still works.
func expectRefused(t *testing.T, app *gwist.App, r *rawConn, addr, fresh string, counter func(gwist.Stats) uint64) {
	t.Helper()
	r.expectClosed()
	waitFor(t, 5*time.Second, "the close counted", func() bool { return counter(app.Stats()) == 1 })
	r2 := dialRaw(t, addr)
	r2.send(fresh)
	if got := r2.whoami("/whoami"); got == "" {
		t.Fatal("no answer on a fresh connection")
	}
}

func TestProxyProtocolRejects(t *testing.T) {
	good := string(ppV2(0x21, 0x11, ppTCP4("203.0.113.30:1", "127.0.0.1:2")))
	badCRC := ppWithCRC(ppV2(0x21, 0x11, ppTCP4("203.0.113.31:1", "127.0.0.1:2")))
	badCRC[16] ^= 0x01 // the source address changed after the checksum
	half := string(ppV2(0x21, 0x11, ppTCP4("203.0.113.32:1", "127.0.0.1:2"))[:20])
	get := "GET /whoami HTTP/1.1\r\nHost: x\r\n\r\n"
	cases := []struct {
		name    string
		trusted netip.Prefix
		send    string
		halfOff bool // then shut the write side
		counter func(gwist.Stats) uint64
	}{
		{"untrusted v1 header", elsewhere, "PROXY TCP4 203.0.113.33 127.0.0.1 1 2\r\n" + get, false, func(s gwist.Stats) uint64 { return s.Proxy.Untrusted }},
		{"untrusted v2 header", elsewhere, good + get, false, func(s gwist.Stats) uint64 { return s.Proxy.Untrusted }},
		{"untrusted v1 signature alone", elsewhere, "PROXY ", false, func(s gwist.Stats) uint64 { return s.Proxy.Untrusted }},
		{"trusted without a header", loopback, get, false, func(s gwist.Stats) uint64 { return s.Proxy.Missing }},
		{"trusted, TLS bytes instead of a header", loopback, "\x16\x03\x01\x00\x05hello", false, func(s gwist.Stats) uint64 { return s.Proxy.Missing }},
		{"truncated v2", loopback, half, true, func(s gwist.Stats) uint64 { return s.Proxy.Truncated }},
		{"truncated v1", loopback, "PROXY TCP4 203.0.113.34 127.0", true, func(s gwist.Stats) uint64 { return s.Proxy.Truncated }},
		{"malformed v1 (port with a leading zero)", loopback, "PROXY TCP4 203.0.113.35 127.0.0.1 01 2\r\n" + get, false, func(s gwist.Stats) uint64 { return s.Proxy.Malformed }},
		{"malformed v1 (LF without CR)", loopback, "PROXY TCP4 203.0.113.36 127.0.0.1 1 2\n" + get, false, func(s gwist.Stats) uint64 { return s.Proxy.Malformed }},
		{"malformed v2 (TLV overruns the header)", loopback, string(ppV2(0x21, 0x11, ppTCP4("203.0.113.37:1", "127.0.0.1:2"), []byte{0x02, 0, 9, 'a'})) + get, false, func(s gwist.Stats) uint64 { return s.Proxy.Malformed }},
		{"malformed v2 (length over 4 KiB)", loopback, "\r\n\r\n\x00\r\nQUIT\n\x21\x11\x10\x00", false, func(s gwist.Stats) uint64 { return s.Proxy.Malformed }},
		{"v2 over UDP", loopback, string(ppV2(0x21, 0x12, ppTCP4("203.0.113.38:1", "127.0.0.1:2"))) + get, false, func(s gwist.Stats) uint64 { return s.Proxy.Malformed }},
		{"bad CRC32C", loopback, string(badCRC) + get, false, func(s gwist.Stats) uint64 { return s.Proxy.Checksum }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			app := whoamiApp(nil)
			addr := startProxied(t, app, tc.trusted)
			fresh := good // what a trusted proxy sends
			if tc.trusted == elsewhere {
				fresh = "" // an untrusted client sends nothing first
			}
			r := dialRaw(t, addr)
			r.send(tc.send)
			if tc.halfOff {
				_ = r.c.(*net.TCPConn).CloseWrite()
			}
			expectRefused(t, app, r, addr, fresh, tc.counter)
			if st := app.Stats().Proxy; st.Errors() != 1 {
				t.Fatalf("stats %+v: one error expected", st)
			}
		})
	}
}

// TestProxyProtocolLogRateLimited: closes are logged, one line a second at
// most, and all counted.
func TestProxyProtocolLogRateLimited(t *testing.T) {
	var log syncBuffer
	app := whoamiApp(&log)
	addr := startProxied(t, app, elsewhere)
	for range 5 {
		r := dialRaw(t, addr)
		r.send("PROXY TCP4 203.0.113.80 127.0.0.1 1 2\r\n")
		r.expectClosed()
	}
	waitFor(t, 5*time.Second, "5 closes counted", func() bool { return app.Stats().Proxy.Untrusted == 5 })
	const msg = "connection closed over its PROXY protocol header"
	if n := strings.Count(log.String(), msg); n < 1 || n > 2 { // 2: the closes spanned a second
		t.Fatalf("%d log lines for 5 closes in quick succession, want 1:\n%s", n, log.String())
	}
	if !strings.Contains(log.String(), "trusted=false") || !strings.Contains(log.String(), "remote=127.0.0.1:") {
		t.Fatalf("log line: %s", log.String())
	}
}

// TestProxyProtocolUntrustedServed: a client outside the trusted networks
// is served as usual, with its own address (h2c by prior knowledge too).
func TestProxyProtocolUntrustedServed(t *testing.T) {
	app := whoamiApp(nil, gwist.WithHTTP2(true))
	addr := startProxied(t, app, elsewhere)
	r := dialRaw(t, addr)
	if got, own := r.whoami("/whoami"), r.c.LocalAddr().String(); got != own {
		t.Fatalf("/whoami %q, want the client's own %q", got, own)
	}
	// "PRO" could begin a signature, "PROPFIND" cannot: served (405).
	// (The engine's wait after "PRO" alone: engine.TestProxyUntrustedPrefixIsARequest.)
	r = dialRaw(t, addr)
	r.send("PRO")
	r.send("PFIND /whoami HTTP/1.1\r\nHost: x\r\n\r\n")
	if resp, _ := r.readResponse("PROPFIND"); resp.StatusCode != 405 {
		t.Fatalf("PROPFIND: %d", resp.StatusCode)
	}
	resp, body := get(t, newClient(t), "http://"+addr+"/whoami")
	if resp.StatusCode != 200 || !strings.HasPrefix(body, "127.0.0.1:") {
		t.Fatalf("%d %q", resp.StatusCode, body)
	}
	if st := app.Stats().Proxy; st.Accepted != 0 || st.Errors() != 0 {
		t.Fatalf("stats %+v", st)
	}
}

// TestProxyProtocolTLSRejects: on a TLS listener the header comes before
// the handshake; an untrusted peer's header is closed without the
// plaintext 400 the TLS port gives other plaintext, and a trusted peer's
// ClientHello without a header is refused.
func TestProxyProtocolTLSRejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trusted netip.Prefix
		counter func(gwist.Stats) uint64
	}{
		{"untrusted header", elsewhere, func(s gwist.Stats) uint64 { return s.Proxy.Untrusted }},
		{"trusted without a header", loopback, func(s gwist.Stats) uint64 { return s.Proxy.Missing }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := whoamiApp(nil)
			addr := startProxiedTLS(t, app, tc.trusted)
			r := dialRaw(t, addr)
			if tc.trusted == elsewhere {
				r.send("PROXY TCP4 203.0.113.40 127.0.0.1 1 2\r\n")
			} else {
				go func() { _ = tls.Client(r.c, &tls.Config{InsecureSkipVerify: true}).Handshake() }()
			}
			r.expectClosed()
			waitFor(t, 5*time.Second, "the close counted", func() bool { return tc.counter(app.Stats()) == 1 })
			header := []byte("PROXY TCP4 203.0.113.41 127.0.0.1 1 2\r\n")
			if tc.trusted == elsewhere {
				header = nil
			}
			tc2 := dialProxiedTLS(t, addr, header)
			r2 := &rawConn{t: t, c: tc2, br: bufio.NewReader(tc2)}
			if got := r2.whoami("/whoami-tls"); !strings.HasSuffix(got, " true") {
				t.Fatalf("fresh TLS connection: %q", got)
			}
		})
	}
}

// TestProxyProtocolHeaderTimeout: a trusted peer that sends half a header
// and waits is closed at the header timeout, without a response, and
// holds up neither the accept of other connections nor their service.
func TestProxyProtocolHeaderTimeout(t *testing.T) {
	const timeout = 500 * time.Millisecond
	app := whoamiApp(nil, gwist.WithHeaderReadTimeout(timeout))
	addr := startProxied(t, app, loopback)
	for _, part := range []string{"", "PROXY TCP4 203.0.113.50 ", string(ppV2(0x21, 0x11, ppTCP4("203.0.113.51:1", "127.0.0.1:2"))[:20])} {
		start := time.Now()
		r := dialRaw(t, addr)
		if part != "" {
			r.send(part)
		}
		// Meanwhile another proxied connection is accepted and served.
		r2 := dialRaw(t, addr)
		r2.send("PROXY TCP4 203.0.113.52 127.0.0.1 1 2\r\n")
		if got := r2.whoami("/whoami"); got != "203.0.113.52:1" {
			t.Fatalf("/whoami %q", got)
		}
		if el := time.Since(start); el > timeout*4/5 { // held up, it would take the timeout
			t.Fatalf("the second connection took %v: the silent one held it up", el)
		}
		r.expectClosed()
		el := time.Since(start)
		if el < timeout-300*time.Millisecond || el > timeout+2*time.Second {
			t.Fatalf("%q: closed after %v, want about %v", part, el, timeout)
		}
	}
	if st := app.Stats().Proxy; st.Timeout != 3 || st.Accepted != 3 {
		t.Fatalf("stats %+v", st)
	}
}

// TestProxyProtocolUntrustedPartialSignature: an untrusted peer that stops
// in the middle of what could be a signature ("PROX") is closed at the
// header timeout, not the idle timeout.
func TestProxyProtocolUntrustedPartialSignature(t *testing.T) {
	const timeout = 500 * time.Millisecond
	app := whoamiApp(nil, gwist.WithHeaderReadTimeout(timeout), gwist.WithIdleTimeout(time.Minute))
	addr := startProxied(t, app, elsewhere)
	start := time.Now()
	r := dialRaw(t, addr)
	r.send("PROX")
	r.expectClosed()
	if el := time.Since(start); el < timeout-300*time.Millisecond || el > timeout+2*time.Second {
		t.Fatalf("closed after %v, want about %v", el, timeout)
	}
	if st := app.Stats().Proxy; st.Timeout != 1 || st.Errors() != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// TestProxyProtocolShutdownClosesWaiting: Shutdown does not wait the
// header timeout for a trusted connection that sent nothing.
func TestProxyProtocolShutdownClosesWaiting(t *testing.T) {
	app := whoamiApp(nil)
	addr, err := app.Start("127.0.0.1:0", gwist.ProxyProtocol(loopback))
	if err != nil {
		t.Fatal(err)
	}
	r := dialRaw(t, addr.String())
	waitFor(t, 5*time.Second, "the connection open", func() bool { return app.Stats().Conns == 1 })
	start := time.Now()
	shutdownApp(t, app)
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("Shutdown took %v", el)
	}
	r.expectClosed()
	if st := app.Stats().Proxy; st.Errors() != 0 {
		t.Fatalf("a drain close counted as an error: %+v", st)
	}
}

func TestProxyProtocolNeedsTrustedNetworks(t *testing.T) {
	app := whoamiApp(nil)
	if _, err := app.Start("127.0.0.1:0", gwist.ProxyProtocol()); err == nil {
		shutdownApp(t, app)
		t.Fatal("Start with no trusted network succeeded")
	}
	if _, err := app.Start("127.0.0.1:0", gwist.ProxyProtocol(netip.Prefix{})); err == nil {
		shutdownApp(t, app)
		t.Fatal("Start with an invalid network succeeded")
	}
	// An IPv4-mapped IPv6 prefix trusts the IPv4 addresses it names.
	addr := startProxied(t, app, netip.MustParsePrefix("::ffff:127.0.0.0/104"))
	r := dialRaw(t, addr)
	r.send("PROXY TCP4 203.0.113.60 127.0.0.1 1 2\r\n")
	if got := r.whoami("/whoami"); got != "203.0.113.60:1" {
		t.Fatalf("/whoami %q", got)
	}
}
