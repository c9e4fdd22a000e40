//go:build unix

package engine

import (
	"bufio"
	"crypto/tls"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/tlsstate"
)

// tlsPeer is a crypto/tls client on a harness connection. What it writes
// waits in toServer until the test goroutine delivers it (pump), as peer
// sends do; what the engine writes it reads from the socket itself, on its
// own goroutine.
type tlsPeer struct {
	p        *peer
	tc       *tls.Conn
	toServer chan []byte
	closed   atomic.Bool
}

// dialTLS opens a harness connection and runs a crypto/tls client with cfg
// on it, through the handshake.
func (h *harness) dialTLS(cfg *tls.Config) *tlsPeer {
	h.t.Helper()
	tp := &tlsPeer{p: h.dial(), toServer: make(chan []byte, 64)}
	h.t.Cleanup(func() { tp.closed.Store(true) })
	tp.tc = tls.Client(tlsPeerConn{tp}, cfg)
	errc := make(chan error, 1)
	go func() { errc <- tp.tc.Handshake() }()
	if err := tp.wait("the handshake", errc); err != nil {
		h.t.Fatalf("handshake: %v", err)
	}
	return tp
}

// get sends GET path and returns the response and its body.
func (tp *tlsPeer) get(path string) (*http.Response, string) {
	tp.p.h.t.Helper()
	type result struct {
		resp *http.Response
		body string
	}
	res := make(chan result, 1)
	errc := make(chan error, 1)
	go func() {
		if _, err := tp.tc.Write([]byte("GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			errc <- err
			return
		}
		resp, err := http.ReadResponse(bufio.NewReader(tp.tc), nil)
		if err != nil {
			errc <- err
			return
		}
		var sb strings.Builder
		_, err = bufio.NewReader(resp.Body).WriteTo(&sb)
		res <- result{resp, sb.String()}
		errc <- err
	}()
	if err := tp.wait("the response to "+path, errc); err != nil {
		tp.p.h.t.Fatalf("GET %s: %v", path, err)
	}
	r := <-res
	return r.resp, r.body
}

// wait delivers the client's writes and runs the loop until errc has a
// result.
func (tp *tlsPeer) wait(what string, errc <-chan error) error {
	var err error
	done := false
	tp.p.h.runUntil(what, func() bool {
		for {
			select {
			case b := <-tp.toServer:
				tp.p.send(string(b))
				continue
			case err = <-errc:
				done = true
			default:
			}
			return done
		}
	})
	return err
}

// tlsPeerConn is the client's transport: writes queue for the test
// goroutine, reads wait on the socket.
type tlsPeerConn struct{ tp *tlsPeer }

func (c tlsPeerConn) Write(b []byte) (int, error) {
	if c.tp.closed.Load() {
		return 0, net.ErrClosed
	}
	c.tp.toServer <- append([]byte(nil), b...)
	return len(b), nil
}

func (c tlsPeerConn) Read(b []byte) (int, error) {
	fd := int(c.tp.p.f.Fd())
	for !c.tp.closed.Load() {
		n, err := unix.Read(fd, b)
		if n > 0 {
			return n, nil
		}
		if n == 0 && err == nil {
			return 0, net.ErrClosed
		}
		if err != unix.EAGAIN && err != unix.EINTR {
			return 0, err
		}
		_, _ = unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 10)
	}
	return 0, net.ErrClosed
}

func (tlsPeerConn) Close() error                     { return nil }
func (tlsPeerConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (tlsPeerConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (tlsPeerConn) SetDeadline(time.Time) error      { return nil }
func (tlsPeerConn) SetReadDeadline(time.Time) error  { return nil }
func (tlsPeerConn) SetWriteDeadline(time.Time) error { return nil }

// tlsView is what a handler sees of the connection's TLS state.
func tlsView(cs *tls.ConnectionState) string {
	if cs == nil {
		return "plaintext"
	}
	peer := "none"
	if len(cs.PeerCertificates) > 0 {
		peer = cs.PeerCertificates[0].Subject.CommonName
	}
	return strings.Join([]string{tls.VersionName(cs.Version), tls.CipherSuiteName(cs.CipherSuite),
		cs.ServerName, cs.NegotiatedProtocol, peer}, " ")
}

// An idle TLS connection's read buffers are given back on the sweep, and
// the next request on it decrypts and sees the same TLS state (version,
// cipher suite, SNI, ALPN, client certificate), over TLS 1.2 and 1.3.
func TestIdleTLSTrimKeepsState(t *testing.T) {
	ca := testkit.NewCA("gwist test CA")
	scfg := testkit.ServerConfig(ca.Server("a.test", "a.test"))
	scfg.ClientAuth, scfg.ClientCAs = tls.VerifyClientCertIfGiven, ca.Pool
	scfg.NextProtos = []string{"http/1.1"}
	ts, err := tlsstate.NewServer(tlsstate.Config{TLS: scfg})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		h := newHarness(t, Config{Inline: true, TLS: ts}, func(ex *Exchange) {
			ex.Status = 200
			ex.Body = append(ex.Body, tlsView(ex.TLS())...)
		})
		ccfg := ca.ClientConfig("a.test", "http/1.1")
		ccfg.MaxVersion, ccfg.Certificates = v, []tls.Certificate{ca.Client("client-1")}
		tp := h.dialTLS(ccfg)
		want := tls.VersionName(v) + " "
		_, first := tp.get("/")
		if !strings.HasPrefix(first, want) || !strings.HasSuffix(first, " a.test http/1.1 client-1") {
			t.Fatalf("%s: first request sees %q", tls.VersionName(v), first)
		}
		h.advance(time.Second) // idle on the sweep: trimmed
		c := tp.p.fc.ctx.(*conn)
		if c.tls.TrimBuffers() {
			t.Fatalf("%s: the sweep left the idle connection's buffers untrimmed", tls.VersionName(v))
		}
		if resp, again := tp.get("/"); resp.StatusCode != 200 || again != first {
			t.Fatalf("%s: after the trim %d %q, before %q", tls.VersionName(v), resp.StatusCode, again, first)
		}
	}
}
