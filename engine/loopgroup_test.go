package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/internal/testkit"
	"github.com/gwist/gwist/websocket"
	xh2 "golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// startOnGroup starts a server with cfg and handler h on g, listening on
// listen, and returns its address.
func startOnGroup(t *testing.T, g *LoopGroup, listen string, cfg Config, h Handler) (*Server, string) {
	t.Helper()
	cfg.Group = g
	s, err := NewServer(cfg, h)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := s.Start(listen)
	if err != nil {
		t.Fatal(err)
	}
	return s, addr.String()
}

func answer(body string) Handler {
	return func(ex *Exchange) { ex.Body = append(ex.Body, body...) }
}

func shutdown(t *testing.T, s *Server, d time.Duration) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return s.Shutdown(ctx)
}

// get does one GET / on its own connection and returns the body.
func get(t *testing.T, addr string) string {
	t.Helper()
	tr := testkit.H1(nil)
	tr.DisableKeepAlives = true
	resp, err := testkit.Client(t, tr).Get("http://" + addr + "/")
	if err != nil {
		t.Fatalf("GET %s: %v", addr, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Two servers on one LoopGroup run on the same gnet loops; each serves its
// own handler, one can stop while the other serves, and the loops stop
// with the last.
func TestLoopGroupSharedByServers(t *testing.T) {
	g := NewLoopGroup()
	s1, a1 := startOnGroup(t, g, "127.0.0.1:0", Config{Inline: true, Loops: 1}, answer("one"))
	s2, a2 := startOnGroup(t, g, "127.0.0.1:0", Config{Inline: true, Loops: 1}, answer("two"))
	if s1.cli != s2.cli || s1.cli == nil {
		t.Fatalf("servers of one group run on different loops (%p, %p)", s1.cli, s2.cli)
	}
	if got := get(t, a1); got != "one" {
		t.Fatalf("first server answered %q", got)
	}
	if got := get(t, a2); got != "two" {
		t.Fatalf("second server answered %q", got)
	}
	if err := shutdown(t, s1, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if g.cli == nil {
		t.Fatal("the loops stopped with the first of two servers")
	}
	if got := get(t, a2); got != "two" {
		t.Fatalf("after the first server's shutdown the second answered %q", got)
	}
	if c, err := net.DialTimeout("tcp", a1, time.Second); err == nil {
		c.Close()
		t.Fatal("the stopped server still accepts")
	}
	if err := shutdown(t, s2, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if g.cli != nil || g.users != 0 {
		t.Fatalf("the loops outlived their last server (users %d)", g.users)
	}
}

// A drain cut by its deadline closes its own server's connections on the
// shared loops (no loop stops for it) and leaves the other server's alone:
// an HTTP/1 request whose handler never returns, an HTTP/2 stream whose
// handler never returns, and a WebSocket whose peer never answers the
// drain's close frame.
func TestLoopGroupCutDrainClosesOnlyItsOwn(t *testing.T) {
	for _, proto := range []string{"http1", "h2c", "websocket"} {
		t.Run(proto, func(t *testing.T) { testCutDrainClosesOnlyItsOwn(t, proto) })
	}
}

// quietWS takes a WebSocket's events and does nothing with them.
type quietWS struct{}

func (quietWS) OnOpen(*WSConn)                               {}
func (quietWS) OnMessage(*WSConn, websocket.Opcode, []byte)  {}
func (quietWS) OnClose(*WSConn, websocket.CloseCode, string) {}

func testCutDrainClosesOnlyItsOwn(t *testing.T, proto string) {
	w, err := NewWorkers(4)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Release(5 * time.Second)
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{}, 1)
	wsCfg := WSConfig{}.WithDefaults()
	g := NewLoopGroup()
	s1, a1 := startOnGroup(t, g, "127.0.0.1:0", Config{Workers: w, Loops: 1, H2C: true}, func(ex *Exchange) {
		if ex.Request.Path == "/ws" {
			if _, err := ex.UpgradeWebSocket(WSUpgrade{Handler: quietWS{}, Config: &wsCfg}); err != nil {
				ex.Status = 500
			}
			return
		}
		started <- struct{}{}
		<-release
	})
	s2, a2 := startOnGroup(t, g, "127.0.0.1:0", Config{Workers: w, Loops: 1}, answer("two"))
	defer shutdown(t, s2, 5*time.Second)

	// A keep-alive connection to the second server, used once.
	other := testkit.Dial(t, a2)
	otherR := bufio.NewReader(other)
	roundTrip := func() string {
		t.Helper()
		_ = other.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := other.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(otherR, nil)
		if err != nil {
			t.Fatalf("the other server's connection: %v", err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return string(b)
	}
	if got := roundTrip(); got != "two" {
		t.Fatalf("the other server answered %q", got)
	}

	// A connection to the first server that its drain cannot finish.
	hung := testkit.Dial(t, a1)
	_ = hung.SetDeadline(time.Now().Add(5 * time.Second))
	switch proto {
	case "http1":
		_, err = hung.Write([]byte("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n"))
	case "h2c":
		err = writeH2Get(hung, "/hang")
	case "websocket":
		_, err = hung.Write([]byte("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
			"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"))
	}
	if err != nil {
		t.Fatal(err)
	}
	if proto == "websocket" {
		resp, err := http.ReadResponse(bufio.NewReader(hung), nil)
		if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
			t.Fatalf("upgrade: %v %v", resp, err)
		}
	} else {
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			t.Fatal("the handler did not start")
		}
	}
	if err := shutdown(t, s1, 200*time.Millisecond); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v, want the deadline", err)
	}
	_ = hung.SetReadDeadline(time.Now().Add(3 * time.Second))
	b, err := io.ReadAll(hung)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the cut server's connection is still open on the shared loop")
	}
	if strings.Contains(string(b), "HTTP/1.1 200") {
		t.Fatalf("the hung request was answered: %q", b)
	}
	if got := roundTrip(); got != "two" {
		t.Fatalf("after the other's cut drain the server answered %q", got)
	}
}

// writeH2Get opens an h2c connection by prior knowledge on c and sends a
// GET of path on stream 1.
func writeH2Get(c net.Conn, path string) error {
	var out, block bytes.Buffer
	out.WriteString(xh2.ClientPreface)
	fr := xh2.NewFramer(&out, nil)
	enc := hpack.NewEncoder(&block)
	for _, f := range [][2]string{{":method", "GET"}, {":scheme", "http"}, {":path", path}, {":authority", "x"}} {
		_ = enc.WriteField(hpack.HeaderField{Name: f[0], Value: f[1]})
	}
	_ = fr.WriteSettings()
	_ = fr.WriteHeaders(xh2.HeadersFrameParam{StreamID: 1, BlockFragment: block.Bytes(), EndHeaders: true, EndStream: true})
	_, err := c.Write(out.Bytes())
	return err
}
