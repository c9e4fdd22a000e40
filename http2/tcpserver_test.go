package http2

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gwist/gwist/http1"
)

// tcpServer serves the sans-I/O Conn over real TCP, one goroutine per
// connection, with a trivial handler run inline when a request is
// complete: GET answers "hello h2" (or ?size=N bytes), POST answers the
// SHA-256 of the body and its length. Test-only.
type tcpServer struct {
	ln  net.Listener
	cfg Config
	wg  sync.WaitGroup
}

func startTCPServer(t testing.TB, cfg Config) *tcpServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &tcpServer{ln: ln, cfg: cfg}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				serveTCP(nc, s.cfg)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *tcpServer) addr() string { return s.ln.Addr().String() }

// tcpStream is one request being received or answered.
type tcpStream struct {
	req  *Request
	body []byte
	out  []byte // response body not yet taken by WriteData
}

func serveTCP(nc net.Conn, cfg Config) {
	defer nc.Close()
	c := NewConn(cfg, time.Now())
	streams := map[uint32]*tcpStream{}
	buf := make([]byte, 0, 64<<10)
	rbuf := make([]byte, 32<<10)
	var out []byte
	for {
		// Write what the connection has.
		for {
			out = c.Output(out[:0], 256<<10)
			if len(out) == 0 {
				break
			}
			if _, err := nc.Write(out); err != nil {
				return
			}
			handleEvents(c, streams)
			pushBodies(c, streams)
		}
		if c.Finished() {
			lingerClose(nc)
			return
		}
		nc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		n, err := nc.Read(rbuf)
		c.Tick(time.Now())
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			if n == 0 {
				return
			}
		}
		buf = append(buf, rbuf[:n]...)
		for {
			used := c.Feed(buf)
			buf = buf[:copy(buf, buf[used:])]
			handleEvents(c, streams)
			if used == 0 || len(buf) == 0 {
				break
			}
		}
		pushBodies(c, streams)
	}
}

func handleEvents(c *Conn, streams map[uint32]*tcpStream) {
	for {
		ev, ok := c.Next()
		if !ok {
			return
		}
		switch ev.Kind {
		case EventRequest:
			streams[ev.Stream] = &tcpStream{req: ev.Request}
			if ev.EndStream {
				answer(c, ev.Stream, streams[ev.Stream])
			}
		case EventData:
			s := streams[ev.Stream]
			s.body = append(s.body, ev.Data...)
			c.Consumed(ev.Stream, len(ev.Data))
			if ev.EndStream {
				answer(c, ev.Stream, s)
			}
		case EventTrailers:
			answer(c, ev.Stream, streams[ev.Stream])
		case EventReset:
			delete(streams, ev.Stream)
			c.Release(ev.Stream)
		}
	}
}

func answer(c *Conn, id uint32, s *tcpStream) {
	var body []byte
	if s.req.Method == "POST" || s.req.Method == "PUT" {
		sum := sha256.Sum256(s.body)
		body = []byte(hex.EncodeToString(sum[:]) + " " + strconv.Itoa(len(s.body)))
	} else {
		body = []byte("hello h2")
		var r http1.Request
		s.req.FillHTTP1(&r)
		if q := r.RawQuery; len(q) > 5 && q[:5] == "size=" {
			n, _ := strconv.Atoi(q[5:])
			body = make([]byte, n)
			for i := range body {
				body[i] = byte('a' + i%26)
			}
		}
	}
	fields := []http1.HeaderField{{Name: "Content-Type", Value: "text/plain"}, {Name: "Content-Length", Value: strconv.Itoa(len(body))}}
	if err := c.WriteHeaders(id, 200, fields, s.req.Method == "HEAD"); err != nil {
		return
	}
	if s.req.Method == "HEAD" {
		c.Release(id)
		return
	}
	s.out = body
	s.body = nil
	if len(body) == 0 {
		s.out = []byte{}
	}
}

// pushBodies hands queued response bodies to the connection as room allows.
func pushBodies(c *Conn, streams map[uint32]*tcpStream) {
	for id, s := range streams {
		if s.out == nil {
			continue
		}
		n, err := c.WriteData(id, s.out, true)
		if err != nil {
			delete(streams, id)
			c.Release(id)
			continue
		}
		s.out = s.out[n:]
		if len(s.out) == 0 && n >= 0 && c.Writable(id) == -1 {
			delete(streams, id)
			c.Release(id)
		}
	}
}

// A server for manual runs: H2_TEST_SERVE=127.0.0.1:PORT go test -run TestServeForever ./http2
func TestServeForever(t *testing.T) {
	addr := os.Getenv("H2_TEST_SERVE")
	if addr == "" {
		t.Skip("set H2_TEST_SERVE=host:port to run a server by hand")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		go serveTCP(nc, Config{})
	}
}

// lingerClose half-closes and reads what the peer still sends for a
// moment, so unread input does not turn the close into a TCP reset that
// destroys the GOAWAY before the peer reads it.
func lingerClose(nc net.Conn) {
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	nc.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
	b := make([]byte, 4096)
	for {
		if _, err := nc.Read(b); err != nil {
			return
		}
	}
}
