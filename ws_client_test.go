package gwist_test

import (
	"bufio"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gwist/gwist/websocket"
)

// wsClient is a WebSocket client for the tests, written with the websocket
// package's frame writer and reader over a net.Conn (plaintext or TLS).
type wsClient struct {
	t    *testing.T
	conn net.Conn
	br   *bufio.Reader
	r    *websocket.Reader
	buf  []byte // input not yet fed
	resp *http.Response
}

// wsKey returns a fresh Sec-WebSocket-Key.
func wsKey() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return base64.StdEncoding.EncodeToString(b[:])
}

// wsHandshake sends the opening handshake for path with extra header lines
// and reads the response head.
func wsHandshake(t *testing.T, conn net.Conn, host, path string, extra ...string) (*wsClient, *http.Response) {
	t.Helper()
	key := wsKey()
	req := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Key: " + key + "\r\nSec-WebSocket-Version: 13\r\n"
	for _, h := range extra {
		req += h + "\r\n"
	}
	req += "\r\n"
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatalf("handshake write: %v", err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("handshake response: %v", err)
	}
	c := &wsClient{t: t, conn: conn, br: br, resp: resp, r: websocket.NewReader(websocket.Config{Client: true, MaxMessage: 64 << 20, MaxFrame: 64 << 20})}
	if resp.StatusCode == 101 {
		if got, want := resp.Header.Get("Sec-WebSocket-Accept"), websocket.AcceptKey(key); got != want {
			t.Fatalf("Sec-WebSocket-Accept %q, want %q", got, want)
		}
	}
	return c, resp
}

// dialWS opens a WebSocket to addr+path and fails the test unless the
// server answers 101.
func dialWS(t *testing.T, addr, path string, extra ...string) *wsClient {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c, resp := wsHandshake(t, conn, addr, path, extra...)
	if resp.StatusCode != 101 {
		t.Fatalf("handshake: status %d, want 101", resp.StatusCode)
	}
	return c
}

// dialWSS is dialWS over TLS.
func dialWSS(t *testing.T, addr, path string, cfg *tls.Config) *wsClient {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	c, resp := wsHandshake(t, conn, addr, path)
	if resp.StatusCode != 101 {
		t.Fatalf("handshake: status %d, want 101", resp.StatusCode)
	}
	return c
}

var testMask = [4]byte{0x12, 0x34, 0x56, 0x78}

// sendFrame writes one masked frame.
func (c *wsClient) sendFrame(op websocket.Opcode, fin bool, payload []byte) {
	c.t.Helper()
	c.sendRaw(websocket.AppendMaskedFrame(nil, op, fin, payload, testMask))
}

// sendRaw writes bytes as they are.
func (c *wsClient) sendRaw(b []byte) {
	c.t.Helper()
	if _, err := c.conn.Write(b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// next reads the next event from the server (within 10 s).
func (c *wsClient) next() (websocket.Event, error) {
	_ = c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if ev, ok := c.r.Next(); ok {
			return ev, nil
		}
		if err := c.r.Err(); err != nil {
			return websocket.Event{}, err
		}
		if len(c.buf) > 0 {
			n := c.r.Feed(c.buf)
			c.buf = c.buf[n:]
			if n > 0 {
				continue
			}
			if ev, ok := c.r.Next(); ok {
				return ev, nil
			}
		}
		var tmp [32 << 10]byte
		n, err := c.br.Read(tmp[:])
		if n > 0 {
			c.buf = append(c.buf, tmp[:n]...)
			continue
		}
		if err != nil {
			return websocket.Event{}, err
		}
	}
}

// expectMessage reads the next event and checks it is the message want.
func (c *wsClient) expectMessage(op websocket.Opcode, want string) {
	c.t.Helper()
	ev, err := c.next()
	if err != nil {
		c.t.Fatalf("reading a message: %v", err)
	}
	if ev.Kind != websocket.EventMessage || ev.Opcode != op || string(ev.Payload) != want {
		c.t.Fatalf("got %v %v %q, want message %v %q", ev.Kind, ev.Opcode, trunc(ev.Payload), op, trunc([]byte(want)))
	}
}

// expectClose reads until the server's close frame and checks its code,
// then checks that the server closes the connection.
func (c *wsClient) expectClose(code websocket.CloseCode) {
	c.t.Helper()
	for {
		ev, err := c.next()
		if err != nil {
			c.t.Fatalf("waiting for close %d: %v", code, err)
		}
		if ev.Kind == websocket.EventPing || ev.Kind == websocket.EventPong {
			continue
		}
		if ev.Kind != websocket.EventClose {
			c.t.Fatalf("got %v before the close frame", ev.Kind)
		}
		if ev.Code != code {
			c.t.Fatalf("close code %d (%q), want %d", ev.Code, ev.Reason, code)
		}
		break
	}
	c.expectEOF()
}

// expectEOF checks that the server closes the connection.
func (c *wsClient) expectEOF() {
	c.t.Helper()
	_ = c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err := io.Copy(io.Discard, c.br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		c.t.Fatal("the server did not close the connection")
	}
}

func trunc(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// rawWSRequest sends a raw handshake request and returns the response.
func rawWSRequest(t *testing.T, addr, req string) (*http.Response, string) {
	t.Helper()
	r := dialRaw(t, addr)
	r.send(req)
	method, _, _ := strings.Cut(req, " ")
	return r.readResponse(method)
}
