package engine

import (
	"net"
	"testing"

	"github.com/panjf2000/gnet/v2"

	"github.com/gwist/gwist/router"
)

// memConn is a gnet.Conn without a socket: input is a byte slice, output is
// counted. Only the methods the HTTP/1 path uses are implemented.
type memConn struct {
	gnet.Conn
	in      []byte
	written int
}

func (m *memConn) Peek(n int) ([]byte, error) {
	if n < 0 || n > len(m.in) {
		return m.in, nil
	}
	return m.in[:n], nil
}

func (m *memConn) Discard(n int) (int, error) {
	if n < 0 || n > len(m.in) {
		n = len(m.in)
	}
	m.in = m.in[n:]
	return n, nil
}

func (m *memConn) Write(p []byte) (int, error) { m.written += len(p); return len(p), nil }
func (m *memConn) EventLoop() gnet.EventLoop   { return nil }
func (m *memConn) Fd() int                     { return -1 }
func (m *memConn) RemoteAddr() net.Addr        { return nil }
func (m *memConn) OutboundBuffered() int       { return 0 }
func (m *memConn) InboundBuffered() int        { return len(m.in) }

// BenchmarkWholeRequestInline runs one plaintext request through the
// engine's own code without sockets: parse, route, handler, serialize, write.
func BenchmarkWholeRequestInline(b *testing.B) {
	req := []byte("GET /users/42 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: wrk\r\nAccept: */*\r\n\r\n")
	rt := router.New[func(*Exchange, router.Params)]()
	rt.Handle("GET", "/", func(ex *Exchange, _ router.Params) { _, _ = ex.WriteString("Hello, World!") })
	rt.Handle("GET", "/users/:id", func(ex *Exchange, ps router.Params) {
		_ = ex.Header.Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = ex.WriteString(ps.Get("id"))
	})
	var ps router.Params = make(router.Params, 0, 8)
	h := func(ex *Exchange) {
		res := rt.Lookup(ex.Request.Method, ex.Request.Path, &ps)
		if res.Status != router.Found {
			ex.Status = 404
			return
		}
		res.Handler(ex, ps)
	}
	srv, err := NewServer(Config{Inline: true}, h)
	if err != nil {
		b.Fatal(err)
	}
	mc := &memConn{}
	c := newConn(srv, mc)
	b.ReportAllocs()
	b.SetBytes(int64(len(req)))
	for b.Loop() {
		mc.in = req
		c.onTraffic()
	}
	if mc.written == 0 || c.closed {
		b.Fatal("no response written")
	}
}
